// The escaping and the XML writer every XML/HTML output goes through.
#include "analysis/report/markdown_report.hpp"
#include "analysis/report/markup.hpp"

#include <gtest/gtest.h>

namespace shakedown::analysis {
namespace {

TEST(Markup, EscapesMarkupCharacters) {
    EXPECT_EQ(escape_markup("a<b & \"c\" 'd'>"), "a&lt;b &amp; &quot;c&quot; &#39;d&#39;&gt;");
    EXPECT_EQ(escape_markup("plain text, ünïcödé ✓"), "plain text, ünïcödé ✓");
}

TEST(Markup, ReplacesWhatXmlCannotCarry) {
    const std::string replacement = "\xEF\xBF\xBD";
    EXPECT_EQ(escape_markup(std::string("a\0b", 3)), "a" + replacement + "b");
    EXPECT_EQ(escape_markup("bell\x07"), "bell" + replacement);
    EXPECT_EQ(escape_markup("tab\tnewline\n"), "tab\tnewline\n");
    EXPECT_EQ(escape_markup("\xC3"), replacement);              // truncated sequence
    EXPECT_EQ(escape_markup("\xC0\xAF"), replacement + replacement);  // overlong '/'
    EXPECT_EQ(escape_markup("\xED\xA0\x80"), replacement + replacement + replacement);  // a surrogate
    EXPECT_EQ(escape_markup("\xEF\xBF\xBF"), replacement);      // U+FFFF
}

// C1 controls are read as escape sequences by terminals (U+009B is CSI); a raw CR moves the
// cursor when the file is shown in one.
TEST(Markup, ReplacesC1ControlsAndKeepsCarriageReturnsAsReferences) {
    const std::string replacement = "\xEF\xBF\xBD";
    EXPECT_EQ(escape_markup("a\xC2\x9B" "2Kb\x7F"), "a" + replacement + "2Kb" + replacement);
    EXPECT_EQ(escape_markup("line\rVerdict: PASS"), "line&#13;Verdict: PASS");
    EXPECT_EQ(escape_markup("\xC2\xA0"), "\xC2\xA0");  // U+00A0 is text
}

TEST(Markup, TerminalEscapingShowsEveryControlCharacterAsBytes) {
    EXPECT_EQ(escape_control("node\x1b[2K\rVerdict: PASS\n"), "node\\x1b[2K\\x0dVerdict: PASS\\x0a");
    EXPECT_EQ(escape_control("tab\there\x7F"), "tab\\x09here\\x7f");
    EXPECT_EQ(escape_control("csi\xC2\x9B" "31m"), "csi\\xc2\\x9b31m");
    EXPECT_EQ(escape_control("bad \xC3 byte"), "bad \\xc3 byte");
    EXPECT_EQ(escape_control(std::string("nul\0", 4)), "nul\\x00");
    EXPECT_EQ(escape_control("plain text, ünïcödé ✓ <a|b> \\"), "plain text, ünïcödé ✓ <a|b> \\");
}

// A right-to-left override in a reason made "node-1 PASS" read otherwise on screen and in the
// report; every bidirectional formatting character is shown, never obeyed.
TEST(Markup, BidirectionalFormattingCharactersAreShownNotObeyed) {
    const std::string replacement = "\xEF\xBF\xBD";
    EXPECT_EQ(escape_control("ok \xE2\x80\xAE" "LIAF"), "ok \\u202eLIAF");
    EXPECT_EQ(escape_control("\xE2\x81\xA6x\xE2\x81\xA9 \xD8\x9C"), "\\u2066x\\u2069 \\u061c");
    EXPECT_EQ(escape_markup("ok \xE2\x80\xAE" "LIAF"), "ok " + replacement + "LIAF");
    EXPECT_EQ(escape_control("\xE2\x80\x94 dash"), "\xE2\x80\x94 dash");  // other punctuation stays
    EXPECT_EQ(first_unprintable("fine ✓"), std::nullopt);
    EXPECT_EQ(first_unprintable("ab\xE2\x80\x8F"), 2U);
    EXPECT_EQ(first_unprintable("abc\xE9"), 3U);
}

// One lower-casing for names compared without case: A-Z only, other bytes (UTF-8 included) kept.
TEST(Markup, AsciiLowerTouchesOnlyAToZ) {
    EXPECT_EQ(ascii_lower("SwitchName=S1 Cooperlake 0000:1A:00.0"), "switchname=s1 cooperlake 0000:1a:00.0");
    EXPECT_EQ(ascii_lower("\xC3\x89T\xC3\xA9 [x]"), "\xC3\x89t\xC3\xA9 [x]");
}

TEST(Markup, WriterNestsAndEscapesAttributesAndText) {
    XmlWriter xml;
    xml.open("suite", {{"name", "node<1>"}});
    xml.element("case", {{"message", "a \"quoted\" & <tagged> reason"}}, "text </case> inside");
    xml.element("empty");
    const std::string document = xml.finish();  // closes <suite>
    EXPECT_EQ(document,
              "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
              "<suite name=\"node&lt;1&gt;\">\n"
              "  <case message=\"a &quot;quoted&quot; &amp; &lt;tagged&gt; reason\">text &lt;/case&gt; inside</case>\n"
              "  <empty/>\n"
              "</suite>\n");
}

TEST(Markup, MarkdownEscapesTableAndEmphasisCharacters) {
    EXPECT_EQ(escape_markdown("a|b *c* _d_ `e`\nf"), "a\\|b \\*c\\* \\_d\\_ \\`e\\` f");
    EXPECT_EQ(escape_markdown("x\x1b[2K\ry"), "x\\\\x1b\\[2K y");
}

}  // namespace
}  // namespace shakedown::analysis
