// junit.xml against the xunit/Jenkins schema (tests/analysis/outputs/junit-10.xsd) with xmllint,
// and read back with xmllint's XPath: hostname, timestamp and properties on every suite, <error>
// for what is not the hardware's, <failure> for a hardware FAIL, <skipped> for a waived test.
#include "analysis_fixtures.hpp"

#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <regex>

namespace shakedown::analysis {
namespace {

using testing::healthy_traces;
using testing::metric_named;
using testing::read_text;
using testing::TempDir;
using testing::test_named;
using testing::write_run;

const std::string junit_xsd = std::string(SHAKEDOWN_SOURCE_DIR) + "/tests/analysis/outputs/junit-10.xsd";

int run_command(const std::string& command) {
    const int status = std::system(command.c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// xmllint must be installed (libxml2-utils): a missing tool fails the test, never skips it.
int validate(const std::filesystem::path& xml, const std::filesystem::path& log) {
    return run_command("xmllint --noout --schema '" + junit_xsd + "' '" + xml.string() + "' >'" + log.string() + "' 2>&1");
}

// The string value of an XPath expression over the file.
std::string xpath(const TempDir& temp, const std::filesystem::path& xml, const std::string& expression) {
    const auto out = temp.path() / "xpath.txt";
    run_command("xmllint --xpath '" + expression + "' '" + xml.string() + "' >'" + out.string() + "' 2>/dev/null");
    std::string value = read_text(out);
    if (!value.empty() && value.back() == '\n') value.pop_back();  // xmllint ends its answer with one
    return value;
}

class JunitXml : public ::testing::Test {
protected:
    void SetUp() override {
        auto traces = healthy_traces(4, 1);
        TestResult& errored = test_named(traces[0], "mpi_pingpong");  // a library's error: software
        errored.status = Status::error;
        errored.reason = "MPI_Send returned MPI_ERR_TRUNCATE";
        metric_named(traces[1], "stream.triad_gbs").value = 4.1;     // 0.52 of nominal: hardware FAIL
        test_named(traces[2], "stream").waive("no CUDA device");     // waived on every rank of node0002
        run_ = write_run(temp_.path() / "run", traces);
        const std::string command = std::string("'") + SHAKEDOWN_ANALYZE_EXE + "' '" + run_.string() +
                                    "' --quiet --no-html >/dev/null 2>&1";
        analyzer_exit_ = run_command(command);
        junit_ = run_ / "junit.xml";
    }
    std::string at(const std::string& expression) { return xpath(temp_, junit_, expression); }

    TempDir temp_;
    std::filesystem::path run_;
    std::filesystem::path junit_;
    int analyzer_exit_ = -1;
};

TEST_F(JunitXml, ValidatesAgainstJunit10Xsd) {
    ASSERT_TRUE(std::filesystem::exists(junit_xsd));
    ASSERT_TRUE(std::filesystem::exists(junit_)) << "analyzer exit " << analyzer_exit_;
    const auto log = temp_.path() / "xmllint.log";
    EXPECT_EQ(validate(junit_, log), 0) << read_text(log);
}

TEST_F(JunitXml, ThePlantedSkippedOnTestsuitesIsRejected) {
    // What junit.xml used to write: the schema must refuse it, or the validation proves nothing.
    std::string text = read_text(junit_);
    const auto at = text.find("<testsuites ");
    ASSERT_NE(at, std::string::npos);
    text.insert(at + std::string("<testsuites ").size(), "skipped=\"1\" ");
    const auto planted = temp_.path() / "planted.xml";
    std::ofstream(planted) << text;
    const auto log = temp_.path() / "xmllint.log";
    EXPECT_NE(validate(planted, log), 0) << read_text(log);
    EXPECT_NE(read_text(log).find("skipped"), std::string::npos) << read_text(log);
}

TEST_F(JunitXml, EverySuiteHasHostnameTimestampAndProperties) {
    EXPECT_EQ(at("count(/testsuites/@skipped)"), "0");
    EXPECT_EQ(at("count(/testsuites/testsuite)"), "4");
    EXPECT_EQ(at("count(/testsuites/testsuite[@hostname and @timestamp and properties])"), "4");
    EXPECT_EQ(at("string(/testsuites/testsuite[@name=\"node0001\"]/@hostname)"), "node0001");
    const std::string stamp = at("string(/testsuites/testsuite[1]/@timestamp)");
    EXPECT_TRUE(std::regex_match(stamp, std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)"))) << stamp;
    EXPECT_EQ(at("string(/testsuites/testsuite[1]/properties/property[@name=\"run_id\"]/@value)"), testing::test_run_id);
    EXPECT_EQ(at("string(/testsuites/testsuite[@name=\"node0001\"]/properties/property[@name=\"node_verdict\"]/@value)"),
              "fail");
}

TEST_F(JunitXml, ErrorsAreErrorsAndHardwareFailuresAreFailures) {
    const std::string node0 = "/testsuites/testsuite[@name=\"node0000\"]";
    const std::string node1 = "/testsuites/testsuite[@name=\"node0001\"]";
    // The software error: an <error> typed by its cause class, not a failure of the node.
    EXPECT_EQ(at("string(" + node0 + "/testcase[@name=\"mpi_pingpong\"]/error/@type)"), "software");
    EXPECT_EQ(at("count(" + node0 + "//failure)"), "0");
    EXPECT_EQ(at("string(" + node0 + "/@errors)"), "1");
    EXPECT_EQ(at("string(" + node0 + "/@failures)"), "0");
    // The hardware FAIL: a <failure> typed by its reason code.
    EXPECT_EQ(at("string(" + node1 + "/testcase[@name=\"stream\"]/failure/@type)"), "below_nominal_fraction");
    EXPECT_EQ(at("count(" + node1 + "//error)"), "0");
    EXPECT_EQ(at("string(" + node1 + "/@failures)"), "1");
    // The waived test, and the healthy node with nothing at all.
    EXPECT_EQ(at("string(/testsuites/testsuite[@name=\"node0002\"]/testcase[@name=\"stream\"]/skipped/@message)"),
              "no CUDA device");
    EXPECT_EQ(at("string(/testsuites/testsuite[@name=\"node0002\"]/@skipped)"), "1");
    EXPECT_EQ(at("count(/testsuites/testsuite[@name=\"node0003\"]//*[self::failure or self::error or self::skipped])"), "0");
    EXPECT_EQ(at("string(/testsuites/@failures)"), "1");
    EXPECT_EQ(at("string(/testsuites/@errors)"), "1");
}

}  // namespace
}  // namespace shakedown::analysis
