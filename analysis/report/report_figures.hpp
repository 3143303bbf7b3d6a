// The report's figures beyond the per-node bars, heatmap and timelines: size sweeps (point to
// point, MPI collectives and NCCL bus bandwidth against message size, each against its nominal or
// calibrated reference) and, for a one-node run, the rank x rank (GPU x GPU) bandwidth matrix.
// A figure is made only where the run holds its data: no empty figure. The HTML report renders
// each in its own section (id as the anchor); the SVG is ours (svg_plots), every label escaped.
#pragma once

#include "analysis/report/report_model.hpp"
#include "analysis/report/svg_plots.hpp"
#include "core/result.hpp"

#include <string>
#include <vector>

namespace shakedown::analysis {

struct ReportFigure {
    std::string id, title, svg, caption;
};

// Every figure the run's rank-0 samples allow (read from its trace), in a fixed order: the declared
// sweeps (sweep_figure_declarations.hpp: p2p, mpi_pingpong, mpi_coll, nccl), the scaling figure,
// then the intra-node matrix of a one-node run.
std::vector<ReportFigure> report_figures(const ReportModel& model);

// The sweep figures one test declares, from its samples (a test that declares none gives none),
// with `references` drawn on the figures that declare references. Rows whose size is not
// a whole byte count are not a sweep and are left out; a test with fewer than two sizes gives none.
std::vector<ReportFigure> sweep_figures(const std::string& test, const SampleTable& samples,
                                        const std::vector<SweepReference>& references = {});

// Rank x rank bandwidth of the allpairs link matrix (link_matrix_columns), intra-node pairs only,
// each pair's median over its measurements printed in GB/s and coloured by its fraction of the
// median pair; `labels[rank]` names each rank ("rank 3 / GPU 3"). Nothing without intra-node pairs.
std::optional<ReportFigure> intra_node_matrix_figure(const SampleTable& matrix, const std::vector<std::string>& labels);

}  // namespace shakedown::analysis
