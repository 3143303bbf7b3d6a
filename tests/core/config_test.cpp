#include "core/config.hpp"
#include "core/errors.hpp"
#include "core/registry.hpp"
#include "sample_tests.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace shakedown::testing {
namespace {

Config parse(const std::string& yaml, CliOverrides cli = {}) {
    return parse_config_text(yaml, "test.yaml", cli, Registry::instance());
}

std::string error_of(const std::string& yaml, CliOverrides cli = {}) {
    try {
        (void)parse(yaml, cli);
    } catch (const InputError& error) {
        return error.what();
    }
    return "no error";
}

TEST(Config, DefaultsWithoutAFile) {
    const Config config = load_config({}, Registry::instance());
    EXPECT_EQ(config.suite, "quick");
    EXPECT_TRUE(config.telemetry_enabled);
    EXPECT_DOUBLE_EQ(config.telemetry_rate_hz, 10.0);
    EXPECT_EQ(config.out_parent, "shakedown-runs");
}

TEST(Config, FileValuesAndCommandLineOverrides) {
    CliOverrides cli;
    cli.tag = "from-cli";
    const Config config = parse(R"(
suite: full
tag: from-file
telemetry: {rate_hz: 4}
watchdog: {deadline_s: 30, deadlines: {alpha: 5}}
params:
  alpha: {size_mib: 8, ratio: 2, mode: fast, verify: false}
faults:
  - {kind: delay, test: beta, rank: 1, seconds: 0.25}
)",
                                cli);
    EXPECT_EQ(config.suite, "full");
    EXPECT_EQ(config.tag, "from-cli");
    EXPECT_DOUBLE_EQ(config.telemetry_rate_hz, 4.0);
    const auto& alpha = *Registry::instance().find("alpha");
    const auto& beta = *Registry::instance().find("beta");
    EXPECT_DOUBLE_EQ(config.deadline_for(alpha), 5.0);
    EXPECT_DOUBLE_EQ(config.deadline_for(beta), 30.0);
    const TestParams params = config.params_for(alpha);
    EXPECT_EQ(params.integer("size_mib"), 8);
    EXPECT_DOUBLE_EQ(params.real("ratio"), 2.0);  // an integer is accepted for a real
    EXPECT_EQ(params.text("mode"), "fast");
    EXPECT_FALSE(params.flag("verify"));
    ASSERT_EQ(config.faults.size(), 1u);
    EXPECT_EQ(config.faults[0].kind, FaultKind::delay);
    EXPECT_EQ(config.faults[0].rank, 1);
    EXPECT_DOUBLE_EQ(config.faults[0].seconds, 0.25);
}

TEST(Config, DefaultsOfUndeclaredParamsComeFromTheTest) {
    const TestParams params = parse("").params_for(*Registry::instance().find("alpha"));
    EXPECT_EQ(params.integer("size_mib"), 64);
    EXPECT_EQ(params.text("mode"), "fast");
    EXPECT_EQ(params.text("device"), "auto");
    EXPECT_TRUE(params.is_auto("n"));
    EXPECT_EQ(params.optional_integer("n"), std::nullopt);
    EXPECT_EQ(params.integers("sizes"), (std::vector<std::int64_t>{8, 1024}));
    EXPECT_EQ(params.names("operations"), (std::vector<std::string>{"write", "read"}));
}

TEST(Config, SuitePresetsAreDataOverTheDefault) {
    const shakedown::Test& alpha = *Registry::instance().find("alpha");
    EXPECT_EQ(parse("suite: quick").params_for(alpha).integer("size_mib"), 64);
    EXPECT_EQ(parse("suite: full").params_for(alpha).integer("size_mib"), 256);
    EXPECT_EQ(parse("suite: full\nparams: {alpha: {size_mib: 8}}").params_for(alpha).integer("size_mib"), 8);  // given wins
}

TEST(Config, DeclaredKindsRangesChoicesListsAndAuto) {
    const shakedown::Test& alpha = *Registry::instance().find("alpha");
    const TestParams params =
        parse("params: {alpha: {n: 12, sizes: [0, 65536], operations: [send], device: gpu, ratio: 4}}").params_for(alpha);
    EXPECT_EQ(params.optional_integer("n"), 12);
    EXPECT_EQ(params.integers("sizes"), (std::vector<std::int64_t>{0, 65536}));
    EXPECT_EQ(params.names("operations"), (std::vector<std::string>{"send"}));
    EXPECT_EQ(params.text("device"), "gpu");
    EXPECT_TRUE(parse("params: {alpha: {n: auto}}").params_for(alpha).is_auto("n"));
    // A list written as text between commas, as configs of text lists were.
    EXPECT_EQ(parse("params: {alpha: {sizes: \"8, 64\"}}").params_for(alpha).integers("sizes"), (std::vector<std::int64_t>{8, 64}));

    EXPECT_EQ(error_of("params: {alpha: {size_mib: 0}}"), "test.yaml:1: 'params.alpha.size_mib' must be between 1 and 1024, got 0");
    EXPECT_EQ(error_of("params: {alpha: {ratio: 4.5}}"), "test.yaml:1: 'params.alpha.ratio' must be between 0 and 4, got 4.5");
    EXPECT_EQ(error_of("params: {alpha: {size_mib: auto}}"), "test.yaml:1: 'params.alpha.size_mib' must be a whole number, not 'auto'");
    EXPECT_EQ(error_of("params: {alpha: {n: 0}}"), "test.yaml:1: 'params.alpha.n' must be at least 1, got 0");
    EXPECT_EQ(error_of("params: {alpha: {device: tpu}}"),
              "test.yaml:1: 'params.alpha.device' unknown value 'tpu' (known: auto, host, gpu)");
    EXPECT_EQ(error_of("params: {alpha: {sizes: [8, 70000]}}"),
              "test.yaml:1: 'params.alpha.sizes' must be between 0 and 65536, got 70000");
    EXPECT_EQ(error_of("params: {alpha: {sizes: [8, x]}}"), "test.yaml:1: 'params.alpha.sizes' must be a whole number, not 'x'");
    EXPECT_EQ(error_of("params: {alpha: {sizes: []}}"), "test.yaml:1: 'params.alpha.sizes' must name at least one value");
    EXPECT_EQ(error_of("params: {alpha: {operations: [write, atomic]}}"),
              "test.yaml:1: 'params.alpha.operations' unknown value 'atomic' (known: write, read, send)");
}

TEST(Config, EveryDeclaredDefaultAndPresetPassesItsOwnDeclaration) {
    for (const auto& test : Registry::instance().tests())
        for (const ParamSpec& spec : test->parameters()) {
            EXPECT_EQ(spec.violation(spec.default_value), std::nullopt) << test->key() << "." << spec.name;
            for (const auto& [suite, value] : spec.suite_defaults)
                EXPECT_EQ(spec.violation(value), std::nullopt) << test->key() << "." << spec.name << " in " << suite;
        }
}

TEST(Config, ResolvedYamlParsesBackToTheSameValues) {
    const Config config = parse("suite: full\nparams: {alpha: {size_mib: 8}}\nwatchdog: {deadline_s: 30}\n");
    const Config again = parse(config.resolved_yaml());
    EXPECT_EQ(again.suite, "full");
    EXPECT_EQ(again.params_for(*Registry::instance().find("alpha")).integer("size_mib"), 8);
    EXPECT_DOUBLE_EQ(*again.deadline_s, 30.0);
}

TEST(Config, InfinibandSysfsRootDefaultsToTheKernelsAndCanPointAtAFakeTree) {
    EXPECT_EQ(parse("suite: quick\n").infiniband_sysfs_root, "/sys/class/infiniband");
    const Config config = parse("telemetry: {infiniband_sysfs_root: /tmp/fake/class/infiniband}\n");
    EXPECT_EQ(config.infiniband_sysfs_root, "/tmp/fake/class/infiniband");
    EXPECT_EQ(parse(config.resolved_yaml()).infiniband_sysfs_root, "/tmp/fake/class/infiniband");
    EXPECT_EQ(error_of("telemetry: {infiniband_sysfs_root: \"\"}"),
              "test.yaml:1: 'telemetry.infiniband_sysfs_root' must name a folder");
    EXPECT_EQ(error_of("telemetry: {infiniband_root: /x}"),
              "test.yaml:1: unknown key 'infiniband_root' in telemetry (allowed: enabled, infiniband_sysfs_root, passive_health, "
              "rate_hz)");
}

TEST(Config, PassiveHealthIsOnUnlessTurnedOff) {
    EXPECT_TRUE(parse("suite: quick\n").passive_health);
    const Config config = parse("telemetry: {passive_health: false}\n");
    EXPECT_FALSE(config.passive_health);
    EXPECT_FALSE(parse(config.resolved_yaml()).passive_health);
    EXPECT_EQ(error_of("telemetry: {passive_health: maybe}").find("test.yaml:1: "), 0u);
}

TEST(Config, StillRunningIntervalDefaultsTo60SecondsAndIsChecked) {
    EXPECT_DOUBLE_EQ(parse("suite: quick\n").still_running_interval_s, 60.0);
    const Config config = parse("progress: {still_running_interval_s: 1}\n");
    EXPECT_DOUBLE_EQ(config.still_running_interval_s, 1.0);
    EXPECT_DOUBLE_EQ(parse(config.resolved_yaml()).still_running_interval_s, 1.0);
    EXPECT_EQ(error_of("progress: {still_running_interval_s: 0}").find("test.yaml:1: 'progress.still_running_interval_s' must be above 0"), 0u);
    EXPECT_EQ(error_of("progress: {interval: 5}"),
              "test.yaml:1: unknown key 'interval' in progress (allowed: still_running_interval_s)");
}

TEST(Config, MalformedYamlNamesFileAndLine) {
    EXPECT_EQ(error_of("suite: quick\nparams: {alpha: [\n"), "test.yaml:3: malformed YAML: end of sequence flow not found");
}

TEST(Config, MistypedValuesAreOneLineErrors) {
    EXPECT_EQ(error_of("telemetry: {rate_hz: fast}"), "test.yaml:1: 'telemetry.rate_hz' must be a number, not 'fast'");
    EXPECT_EQ(error_of("telemetry:\n  rate_hz: -1\n"), "test.yaml:2: 'telemetry.rate_hz' must be above 0 and at most 100, got -1");
    EXPECT_EQ(error_of("params: {alpha: {size_mib: 1.5}}"),
              "test.yaml:1: 'params.alpha.size_mib' must be a whole number, not '1.5'");
    EXPECT_EQ(error_of("params: {alpha: {verify: maybe}}"),
              "test.yaml:1: 'params.alpha.verify' must be true or false, not 'maybe'");
}

// A YAML key may be a mapping or a list (`? [a]: b`); the config fuzzer found that it escaped as
// yaml-cpp's conversion error (std::terminate in the fuzzer, not one line and exit 2).
TEST(Config, AKeyThatIsAListOrAMappingIsOneLine) {
    EXPECT_EQ(error_of("? [tests]\n: [alpha]\n"),
              "test.yaml:1: a key in the configuration must be a name, not a mapping or a list");
    EXPECT_EQ(error_of("params:\n  ? {alpha: 1}\n  : {}\n"), "test.yaml:2: a key in params must be a name, not a mapping or a list");
    EXPECT_EQ(error_of("watchdog:\n  deadlines:\n    ? [alpha]\n    : 5\n"),
              "test.yaml:3: a key in watchdog.deadlines must be a name, not a mapping or a list");
    EXPECT_EQ(error_of("telemetry:\n  ? [enabled]\n  : true\n"),
              "test.yaml:2: a key in telemetry must be a name, not a mapping or a list");
}

TEST(Config, UnknownKeysAndNamesAreRejected) {
    EXPECT_EQ(error_of("suiet: quick"),
              "test.yaml:1: unknown key 'suiet' in the configuration (allowed: exclude, faults, name, out, params, "
              "progress, suite, tag, telemetry, tests, watchdog)");
    EXPECT_EQ(error_of("params: {alpha: {sise_mib: 8}}"),
              "test.yaml:1: unknown key 'sise_mib' in params.alpha (allowed: device, mode, n, operations, ratio, size_mib, "
              "sizes, verify)");
    EXPECT_EQ(error_of("params: {gamma: {}}"), "test.yaml:1: unknown test 'gamma' in params (known: alpha, beta, delta)");
    EXPECT_EQ(error_of("faults: [{kind: explode, test: alpha}]"),
              "test.yaml:1: unknown fault kind 'explode' (known: abort, hang, stop, corrupt, delay)");
    EXPECT_EQ(error_of("suite: nightly"), "unknown suite 'nightly' (known: full, quick)");
    CliOverrides cli;
    cli.tests = {"alpha", "gamma"};
    EXPECT_EQ(error_of("", cli), "unknown test 'gamma' (known: alpha, beta, delta)");
}

// The run records the keys a pattern chose, not the pattern: a confirmation step that reuses the
// configuration runs the same tests even where a later build adds one the pattern would match.
TEST(Config, PatternsAreRecordedAsTheKeysTheyMatched) {
    CliOverrides cli;
    cli.tests = {"*a"};
    cli.exclude = {"d*"};
    const Config config = parse("tests: [beta]", cli);
    EXPECT_EQ(config.tests, (std::vector<std::string>{"alpha", "beta", "delta"}));
    EXPECT_EQ(config.exclude, (std::vector<std::string>{"delta"}));
    EXPECT_EQ(parse("exclude: ['?eta']").exclude, (std::vector<std::string>{"beta"}));
}

TEST(Config, RunNameMustBeAPlainFolderName) {
    CliOverrides cli;
    cli.run_name = "../escape";
    EXPECT_EQ(error_of("", cli), "run name '../escape' must be a plain folder name");
}

// Newlines and escape codes in --name/--tag reached folder names, run.json and terminals; a
// 300-byte --name ended in a failed mkdir after MPI had started (exit 3, a raw filesystem error).
TEST(Config, RunNameAndTagHoldNoControlCharactersAndFitAFileName) {
    CliOverrides cli;
    cli.run_name = "run\nVerdict: PASS";
    EXPECT_EQ(error_of("", cli), "the run name must be printable text: byte 0x0a at position 4 is a control character");
    cli.run_name = "run\x1b[31m";
    EXPECT_EQ(error_of("", cli), "the run name must be printable text: byte 0x1b at position 4 is a control character");
    cli.run_name = std::string(256, 'n');
    EXPECT_EQ(error_of("", cli), "the run name is 256 bytes long; at most 255");
    cli.run_name = std::string(255, 'n');
    EXPECT_EQ(parse("", cli).run_name, std::string(255, 'n'));
    cli.run_name.reset();
    cli.tag = "night\rly";
    EXPECT_EQ(error_of("", cli), "the tag must be printable text: byte 0x0d at position 6 is a control character");
    cli.tag = std::string(201, 't');
    EXPECT_EQ(error_of("", cli), "the tag is 201 bytes long; at most 200");
    EXPECT_EQ(error_of("tag: \"a\\tb\"\n"), "the tag must be printable text: byte 0x09 at position 2 is a control character");
    // A C1 control (terminals read U+009B as an escape), a Latin-1 byte (run.json must be UTF-8)
    // and a right-to-left override (it reverses what follows it on screen) are refused alike.
    cli.tag = "a\xc2\x9b" "31mb";
    EXPECT_EQ(error_of("", cli), "the tag must be printable text: byte 0xc2 at position 2 is a control character");
    cli.tag = "caf\xe9";
    EXPECT_EQ(error_of("", cli), "the tag must be printable text: byte 0xe9 at position 4 is not UTF-8");
    cli.tag = "ok\xe2\x80\xae" "LIAF";
    EXPECT_EQ(error_of("", cli),
              "the tag must be printable text: byte 0xe2 at position 3 starts a bidirectional formatting character");
    cli.tag = "caf\xc3\xa9-\xe6\xb5\x8b";  // other UTF-8 is a tag like any other
    EXPECT_EQ(parse("", cli).tag, "caf\xc3\xa9-\xe6\xb5\x8b");
    EXPECT_EQ(error_of("name: \"\"\n"), "run name '' must be a plain folder name");
    EXPECT_EQ(error_of("out: \"\"\n"), "the output folder ('out') must name a folder");
}

// Faults that cannot be planted were accepted and then planted nothing: a test not in the run, a
// rank the run does not have, a delay of no seconds. Each is refused naming the fault; only where
// --tests/--exclude narrowed the file's own selection (a confirmation step runs the job's config
// on a few tests) is a fault for a test left out not planted, and the run says so.
TEST(Config, FaultsThatCannotBePlantedAreRefusedNamingTheFault) {
    EXPECT_EQ(error_of("tests: [alpha]\nfaults:\n  - {kind: abort, test: beta, rank: 1}\n"),
              "test.yaml:3: fault abort on beta cannot be planted: beta is not in this run (it runs alpha)");
    EXPECT_EQ(error_of("suite: quick\nfaults: [{kind: corrupt, test: beta}]\n"),
              "test.yaml:2: fault corrupt on beta cannot be planted: beta is not in this run (it runs alpha)");
    CliOverrides cli;
    cli.tests = {"alpha"};
    const Config narrowed = parse("faults:\n  - {kind: abort, test: beta, rank: 1}\n  - {kind: corrupt, test: alpha}\n", cli);
    ASSERT_EQ(narrowed.faults.size(), 1u);
    EXPECT_EQ(narrowed.faults[0].test, "alpha");
    EXPECT_EQ(narrowed.unplanted_faults, std::vector<std::string>{"test.yaml:2: fault abort on beta cannot be planted: beta "
                                                                  "is not in this run (it runs alpha); not planted"});
    EXPECT_EQ(error_of("faults: [{kind: delay, test: alpha, rank: 1}]\n", cli),
              "test.yaml:1: fault delay on alpha cannot be planted: it needs 'seconds' above 0 (the delay per operation)");
    EXPECT_EQ(error_of("faults: [{kind: delay, test: alpha, seconds: -0.5}]\n", cli),
              "test.yaml:1: 'faults.seconds' must be between 0 and 2592000, got -0.5");
    const Config config = parse("faults:\n  - {kind: abort, test: alpha, rank: 1}\n  - {kind: hang, test: alpha, rank: 99}\n", cli);
    EXPECT_NO_THROW(check_faults_for_world(config, 100));
    try {
        check_faults_for_world(config, 2);
        ADD_FAILURE() << "rank 99 of 2 accepted";
    } catch (const InputError& error) {
        EXPECT_STREQ(error.what(), "test.yaml:3: fault hang on alpha cannot be planted: rank 99 is not in this run of 2 rank(s) (0..1)");
    }
}

// The config's own numbers are declared with their ranges (as a test's parameters are): a deadline
// of 1e10 s overflowed the watchdog's clock (it fired at once), 1e17 left no run.json, and a
// telemetry rate of 1e9 Hz was accepted (the sampler saturates near 12.5 kHz).
TEST(Config, SettingsBeyondTheirDeclaredRangeAreRefusedWithTheLimit) {
    EXPECT_EQ(error_of("watchdog: {deadline_s: 1e10}"),
              "test.yaml:1: 'watchdog.deadline_s' must be above 0 and at most 2592000, got 10000000000");
    EXPECT_EQ(error_of("watchdog: {deadline_s: 1e17}"),
              "test.yaml:1: 'watchdog.deadline_s' must be above 0 and at most 2592000, got 1e+17");
    EXPECT_EQ(error_of("watchdog: {deadline_s: 0}"),
              "test.yaml:1: 'watchdog.deadline_s' must be above 0 and at most 2592000, got 0");
    EXPECT_EQ(error_of("watchdog: {grace_s: 1e12}"),
              "test.yaml:1: 'watchdog.grace_s' must be above 0 and at most 2592000, got 1000000000000");
    EXPECT_EQ(error_of("watchdog: {deadlines: {alpha: 3e9}}"),
              "test.yaml:1: 'watchdog.deadlines.alpha' must be above 0 and at most 2592000, got 3000000000");
    EXPECT_EQ(error_of("watchdog: {deadline_s: .inf}"), "test.yaml:1: 'watchdog.deadline_s' must be a finite number");
    EXPECT_EQ(error_of("telemetry: {rate_hz: 1e9}"),
              "test.yaml:1: 'telemetry.rate_hz' must be above 0 and at most 100, got 1000000000");
    EXPECT_EQ(error_of("faults: [{kind: delay, test: alpha, seconds: 1e10}]"),
              "test.yaml:1: 'faults.seconds' must be between 0 and 2592000, got 10000000000");
    EXPECT_EQ(error_of("faults: [{kind: abort, test: alpha, rank: 4294967296}]"),
              "test.yaml:1: 'faults.rank' must be between 0 and 1048575, got 4294967296");
    // The limits themselves are accepted.
    const Config config = parse("watchdog: {deadline_s: 2592000}\ntelemetry: {rate_hz: 100}\n");
    EXPECT_DOUBLE_EQ(*config.deadline_s, 2592000.0);
    EXPECT_DOUBLE_EQ(config.telemetry_rate_hz, 100.0);
}

// yaml-cpp keeps the first of two equal keys, and the first of several documents, silently: a
// config with `suite:` twice or a second document after `---` ran with settings nobody meant.
TEST(Config, ControlCharactersAreRefusedBeforeTheYamlParserSeesThem) {
    EXPECT_EQ(error_of(std::string(", s\x01\x01l", 6)), "test.yaml:1: control character 0x01: YAML holds printable characters only");
    EXPECT_EQ(error_of("suite: quick\ntag: a\x1b[2Jb\n"), "test.yaml:2: control character 0x1b: YAML holds printable characters only");
    EXPECT_EQ(error_of(std::string("suite: quick\0", 13)), "test.yaml:1: control character 0x00: YAML holds printable characters only");
    // Broken UTF-8 (also found by fuzzing: yaml-cpp looped on 0xf5 0xa7 in a key), overlong forms
    // and surrogates are refused; well-formed UTF-8 is text like any other.
    EXPECT_EQ(error_of("# S:\n !l\xf5\xa7o: 1\n"), "test.yaml:2: byte 0xf5 is not UTF-8: YAML is Unicode text");
    EXPECT_EQ(error_of("tag: \xc0\xaf\n"), "test.yaml:1: byte 0xc0 is not UTF-8: YAML is Unicode text");
    EXPECT_EQ(error_of("tag: \xed\xa0\x80\n"), "test.yaml:1: byte 0xed is not UTF-8: YAML is Unicode text");
    EXPECT_EQ(error_of("tag: \xe2\x82\n"), "test.yaml:1: byte 0xe2 is not UTF-8: YAML is Unicode text");
    EXPECT_EQ(parse("tag: caf\xc3\xa9-\xe2\x82\xac-\xf0\x9f\x98\x80\n").suite, "quick");
    EXPECT_EQ(parse("suite: full\r\nparams: {alpha: {n:\t8}}\n").suite, "full");  // tab, CR and LF are YAML's own
}

TEST(Config, AStrayCommaIsMalformedNotAnEndlessStreamOfDocuments) {
    // Found by fuzzing: yaml-cpp's LoadAll collects empty documents at a stray ',' for ever.
    for (const char* text : {",", ", s", "# a comment\n,\n"}) {
        const std::string error = error_of(text);
        EXPECT_NE(error.find("malformed YAML: the parser cannot read past this point"), std::string::npos) << error;
        EXPECT_EQ(error.rfind("test.yaml:", 0), 0u) << error;
    }
}

TEST(Config, DuplicateKeysAndExtraDocumentsAreRefused) {
    EXPECT_EQ(error_of("suite: quick\nsuite: full\n"), "test.yaml:2: duplicate key 'suite' (first at line 1)");
    EXPECT_EQ(error_of("params:\n  alpha:\n    n: 1\n    n: 2\n"), "test.yaml:4: duplicate key 'n' (first at line 3)");
    EXPECT_EQ(error_of("faults: [{kind: abort, test: alpha, kind: hang}]"),
              "test.yaml:1: duplicate key 'kind' (first at line 1)");
    EXPECT_EQ(error_of("suite: quick\n---\nsuite: full\n"), "test.yaml:2: a second YAML document (the file must hold one)");  // at its ---
    EXPECT_EQ(error_of("suite: quick\n---\n"), "test.yaml:2: a second YAML document (the file must hold one)");
    // One document, an explicit end marker, an empty file and an anchor no alias uses are fine.
    EXPECT_EQ(parse("---\nsuite: full\n...\n").suite, "full");
    EXPECT_EQ(parse("").suite, "quick");
    EXPECT_EQ(parse("tag: &t nightly\n").tag, "nightly");
    // An alias is refused: 5000 aliases of a 1 MiB value in a 1 MB file exhausted memory.
    EXPECT_EQ(error_of("tag: &t nightly\nname: *t\n"),
              "test.yaml:2: a YAML alias (*name): write the value out instead (aliases can repeat a large value "
              "without bound)");
    std::string bomb = "exclude: [&a " + std::string(1 << 16, 'x');
    for (int i = 0; i < 5000; ++i) bomb += ", *a";
    EXPECT_EQ(error_of(bomb + "]\n").find("test.yaml:1: a YAML alias"), 0u);
}

std::string load_error(const std::filesystem::path& file) {
    CliOverrides cli;
    cli.config_file = file;
    try {
        (void)load_config(cli, Registry::instance());
    } catch (const InputError& error) {
        return error.what();
    }
    return "no error";
}

TEST(Config, MissingConfigFileIsAnInputError) {
    EXPECT_EQ(load_error("/nonexistent/shakedown.yaml"), "cannot read config file '/nonexistent/shakedown.yaml': no such file");
}

// --config must name a regular file below 16 MiB, checked before it is opened: /dev/zero was read
// until the OOM killer came, a FIFO blocked every rank, a folder was read as an empty config.
TEST(Config, ConfigFileMustBeARegularFileOfBoundedSize) {
    EXPECT_EQ(load_error("/dev/zero"), "cannot read config file '/dev/zero': not a regular file (a character device)");
    const auto dir = std::filesystem::temp_directory_path() / ("shakedown-config-test-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir / "folder.yaml");
    EXPECT_EQ(load_error(dir / "folder.yaml"),
              "cannot read config file '" + (dir / "folder.yaml").string() + "': not a regular file (a directory)");
    const auto fifo = dir / "fifo.yaml";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    EXPECT_EQ(load_error(fifo), "cannot read config file '" + fifo.string() + "': not a regular file (a FIFO)");
    const auto huge = dir / "huge.yaml";
    std::ofstream(huge) << "suite: quick\n";
    std::filesystem::resize_file(huge, (std::uintmax_t{16} << 20) + 1);  // sparse: no disk used
    EXPECT_EQ(load_error(huge),
              "cannot read config file '" + huge.string() + "': too large (16777217 bytes; at most 16777216)");
    std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace shakedown::testing
