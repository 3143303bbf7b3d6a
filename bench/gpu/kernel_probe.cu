// kernel_probe: a tuning probe for the GPU host, not part of shakedown's tests. It times the
// variants we choose between (STREAM launch shapes, DGEMM sizes, the FP8 cuBLASLt set-up) in
// one run so the product's kernels can take the best one. Build here:
//   nvcc -O3 -arch=sm_90 -std=c++17 bench/gpu/kernel_probe.cu -lcublas -lcublasLt -o kernel_probe
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(x) do { auto e = (x); if (e != 0) { std::printf("FAILED %s = %d (line %d)\n", #x, (int)e, __LINE__); } } while (0)

__global__ void triad_one(double* a, const double* b, const double* c, double s, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) a[i] = b[i] + s * c[i];
}
__global__ void triad_one_int(double* a, const double* b, const double* c, double s, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] = b[i] + s * c[i];
}
__global__ void triad_stride(double* __restrict__ a, const double* __restrict__ b, const double* __restrict__ c, double s, size_t n) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)blockDim.x * gridDim.x) a[i] = b[i] + s * c[i];
}
__global__ void triad_vec2(double2* __restrict__ a, const double2* __restrict__ b, const double2* __restrict__ c, double s, size_t n2) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n2; i += (size_t)blockDim.x * gridDim.x) {
        double2 x = b[i], y = c[i];
        a[i] = make_double2(x.x + s * y.x, x.y + s * y.y);
    }
}
__global__ void copy_one(const double* a, double* c, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i];
}
__global__ void copy_vec2(const double2* __restrict__ a, double2* __restrict__ c, size_t n2) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n2; i += (size_t)blockDim.x * gridDim.x) c[i] = a[i];
}

template <typename F>
double best_ms(F launch, int reps = 20) {
    cudaEvent_t s, e;
    cudaEventCreate(&s); cudaEventCreate(&e);
    std::vector<float> t;
    for (int r = 0; r < reps; ++r) {
        cudaEventRecord(s); launch(); cudaEventRecord(e); cudaEventSynchronize(e);
        float ms = 0; cudaEventElapsedTime(&ms, s, e); t.push_back(ms);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];  // median
}

int main(int argc, char** argv) {
    const size_t n = size_t(1) << 29;
    double *a, *b, *c;
    CHECK(cudaMalloc(&a, n * 8)); CHECK(cudaMalloc(&b, n * 8)); CHECK(cudaMalloc(&c, n * 8));
    cudaMemset(a, 0, n * 8); cudaMemset(b, 0, n * 8); cudaMemset(c, 0, n * 8);
    int sms = 0; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    const double tri = 3.0 * n * 8 / 1e9, cp = 2.0 * n * 8 / 1e9;
    std::printf("stream n=2^29 doubles, median of 20\n");
    for (int tb : {256, 512, 1024}) {
        double ms = best_ms([&] { triad_one<<<(n + tb - 1) / tb, tb>>>(a, b, c, 0.4, n); });
        std::printf("  triad one/thread size_t tb=%d: %.0f GB/s\n", tb, tri / ms * 1e3);
        ms = best_ms([&] { triad_one_int<<<(n + tb - 1) / tb, tb>>>(a, b, c, 0.4, (int)n); });
        std::printf("  triad one/thread int    tb=%d: %.0f GB/s\n", tb, tri / ms * 1e3);
        ms = best_ms([&] { copy_one<<<(n + tb - 1) / tb, tb>>>(a, c, n); });
        std::printf("  copy  one/thread size_t tb=%d: %.0f GB/s\n", tb, cp / ms * 1e3);
    }
    for (int per_sm : {2, 4, 8, 16, 32}) for (int tb : {256, 512, 1024}) {
        int g = sms * per_sm;
        double ms = best_ms([&] { triad_stride<<<g, tb>>>(a, b, c, 0.4, n); });
        double ms2 = best_ms([&] { triad_vec2<<<g, tb>>>((double2*)a, (double2*)b, (double2*)c, 0.4, n / 2); });
        double ms3 = best_ms([&] { copy_vec2<<<g, tb>>>((double2*)a, (double2*)c, n / 2); });
        std::printf("  grid %3d/SM tb=%4d: triad stride %.0f, triad vec2 %.0f, copy vec2 %.0f GB/s\n", per_sm, tb,
                    tri / ms * 1e3, tri / ms2 * 1e3, cp / ms3 * 1e3);
    }
    double ms = best_ms([&] { cudaMemcpy(c, a, n * 8, cudaMemcpyDeviceToDevice); });
    std::printf("  cudaMemcpy D2D: %.0f GB/s (read+write)\n", cp / ms * 1e3);
    cudaFree(a); cudaFree(b); cudaFree(c);

    cublasHandle_t h; CHECK(cublasCreate(&h));
    std::printf("dgemm (cublasDgemm), median of 10 after 3 warm-ups\n");
    for (int m : {8192, 10240, 12288, 12544, 16384}) {
        double *A, *B, *C;
        size_t bytes = size_t(m) * m * 8;
        CHECK(cudaMalloc(&A, bytes)); CHECK(cudaMalloc(&B, bytes)); CHECK(cudaMalloc(&C, bytes));
        std::vector<double> host(size_t(m) * m);
        for (size_t i = 0; i < host.size(); ++i) host[i] = (double)((i * 2654435761u) % 1000) / 1000.0 - 0.5;
        cudaMemcpy(A, host.data(), bytes, cudaMemcpyHostToDevice); cudaMemcpy(B, host.data(), bytes, cudaMemcpyHostToDevice);
        const double one = 1, zero = 0;
        for (int w = 0; w < 3; ++w) cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, m, m, &one, A, m, B, m, &zero, C, m);
        double t = best_ms([&] { cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, m, m, &one, A, m, B, m, &zero, C, m); }, 10);
        std::printf("  n=%d: %.1f TFLOP/s (%.1f ms)\n", m, 2.0 * m * m * (double)m / t / 1e9, t);
        cudaFree(A); cudaFree(B); cudaFree(C);
    }

    std::printf("fp8 e4m3 cuBLASLt n=8192 TN\n");
    cublasLtHandle_t lt; CHECK(cublasLtCreate(&lt));
    const int m = 8192;
    void *A8, *B8, *Cbf, *Dbf, *D32, *ws; float* scales;
    CHECK(cudaMalloc(&A8, size_t(m) * m)); CHECK(cudaMalloc(&B8, size_t(m) * m));
    CHECK(cudaMalloc(&Cbf, size_t(m) * m * 2)); CHECK(cudaMalloc(&Dbf, size_t(m) * m * 2)); CHECK(cudaMalloc(&D32, size_t(m) * m * 4));
    const size_t wsb = 64ull << 20; CHECK(cudaMalloc(&ws, wsb)); CHECK(cudaMalloc(&scales, 16));
    cudaMemset(A8, 0x38, size_t(m) * m); cudaMemset(B8, 0x38, size_t(m) * m);
    float ones[4] = {1, 1, 1, 1}; cudaMemcpy(scales, ones, 16, cudaMemcpyHostToDevice);
    struct Variant { const char* name; cudaDataType_t ct, dt; bool inplace; };
    for (Variant v : {Variant{"C=bf16 D=bf16 in-place", CUDA_R_16BF, CUDA_R_16BF, true},
                      Variant{"C=bf16 D=bf16 separate", CUDA_R_16BF, CUDA_R_16BF, false},
                      Variant{"C=fp32 D=fp32 separate", CUDA_R_32F, CUDA_R_32F, false},
                      Variant{"C=fp32 D=fp32 in-place", CUDA_R_32F, CUDA_R_32F, true}}) {
        cublasLtMatmulDesc_t d; CHECK(cublasLtMatmulDescCreate(&d, CUBLAS_COMPUTE_32F, CUDA_R_32F));
        cublasOperation_t t = CUBLAS_OP_T, nn = CUBLAS_OP_N;
        cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSA, &t, sizeof t);
        cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSB, &nn, sizeof nn);
        const float* sa = scales; const float* sb = scales + 1;
        cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &sa, sizeof sa);
        cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &sb, sizeof sb);
        cublasLtMatrixLayout_t la, lb, lc, ld;
        cublasLtMatrixLayoutCreate(&la, CUDA_R_8F_E4M3, m, m, m); cublasLtMatrixLayoutCreate(&lb, CUDA_R_8F_E4M3, m, m, m);
        cublasLtMatrixLayoutCreate(&lc, v.ct, m, m, m); cublasLtMatrixLayoutCreate(&ld, v.dt, m, m, m);
        cublasLtMatmulPreference_t p; cublasLtMatmulPreferenceCreate(&p);
        cublasLtMatmulPreferenceSetAttribute(p, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &wsb, sizeof wsb);
        cublasLtMatmulHeuristicResult_t r{}; int found = 0;
        int hs = cublasLtMatmulAlgoGetHeuristic(lt, d, la, lb, lc, ld, p, 1, &r, &found);
        void* C = v.ct == CUDA_R_16BF ? Cbf : D32;
        void* D = v.inplace ? C : (v.dt == CUDA_R_16BF ? Dbf : D32);
        if (!v.inplace && v.dt == CUDA_R_32F) C = Cbf;  // fp32 C buffer must differ from D: reuse a big one
        float alpha = 1, beta = 0;
        int st = -1; double t_ms = 0;
        if (hs == 0 && found > 0) {
            st = cublasLtMatmul(lt, d, &alpha, A8, la, B8, lb, &beta, C, lc, D, ld, &r.algo, ws, wsb, 0);
            cudaDeviceSynchronize();
            if (st == 0) t_ms = best_ms([&] { cublasLtMatmul(lt, d, &alpha, A8, la, B8, lb, &beta, C, lc, D, ld, &r.algo, ws, wsb, 0); }, 10);
        }
        std::printf("  %s: heuristic %d found %d matmul %d: %.1f TFLOP/s\n", v.name, hs, found, st,
                    t_ms > 0 ? 2.0 * m * m * (double)m / t_ms / 1e9 : 0.0);
    }
    std::printf("probe done: %s\n", cudaGetErrorString(cudaGetLastError()));
    return 0;
}
