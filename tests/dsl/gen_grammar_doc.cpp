// og_grammar_doc_gen: writes the generated pages of the grammar reference into docs/grammar/:
// one page per topic (optgrammar/dsl/grammar.hpp's OPTGRAMMAR_CONSTRUCT_TOPICS), made of the
// topic's introduction (tests/dsl/grammar_doc/TOPIC.md), its constructs from the construct records
// with their types as the C++ front end's typing (the typing column of dsl/grammar.hpp through
// dsl/typing.hpp, and dsl/node.hpp's type_of for the families typed by code) gives them, its example
// rules (the blocks of tests/dsl/grammar_examples.cpp, which is compiled and tested), and the
// messages of the catalogue (dsl/messages.hpp) that concern it with the annotated bad rules of
// tests/dsl/rejections.inc; and the two indexes constructs.md and messages.md. With --check it
// compares them with the files and fails when they differ (the staleness test).
//   og_grammar_doc_gen [--check] REJECTIONS EXAMPLES INTRO_DIR DOCS_DIR
#include "rejection_forms.hpp"

#include <optgrammar/dsl/grammar.hpp>
#include <optgrammar/dsl/messages.hpp>
#include <optgrammar/dsl/node.hpp>
#include <optgrammar/dsl/passes.hpp>

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {
using namespace optgrammar::dsl;
namespace fs = std::filesystem;

const char* const regenerate = "regenerate with `cmake --build <build> --target og_grammar_doc`";

/// The pages a catalogue family is listed on (FaultText::pages; the first is its home, where
/// messages.md links).
std::vector<std::string> fault_topics(std::size_t i) {
  std::vector<std::string> out;
  std::istringstream words{std::string(fault_texts[i].pages)};
  for (std::string w; words >> w;) out.push_back(w);
  return out;
}

constexpr std::size_t n_faults = sizeof(fault_texts) / sizeof(fault_texts[0]);
constexpr std::size_t n_topics = static_cast<std::size_t>(Topic::registration) + 1;

struct Case {
  std::string name;    ///< the entry's name
  std::string expect;  ///< the exact message
  std::string bad;     ///< the ill-formed rule
  std::string good;    ///< its corrected twin
};

/// Reads a C string literal starting at s[i] (the opening quote); returns its value, i past it.
std::string c_string(const std::string& s, std::size_t& i) {
  std::string v;
  for (++i; i < s.size() && s[i] != '"'; ++i) v += s[i] == '\\' && i + 1 < s.size() ? s[++i] : s[i];
  ++i;
  return v;
}

/// The entries of tests/dsl/rejections.inc by family, in file order.
std::map<std::string, std::vector<Case>> read_cases(const fs::path& file) {
  std::map<std::string, std::vector<Case>> by_fault;
  std::map<std::string, std::pair<std::string, std::size_t>> by_name;
  std::ifstream is(file);
  std::string line;
  while (std::getline(is, line)) {
    bool reject = false;
    const og_rejections::EntryForm* form = og_rejections::entry_form(line, reject);
    if (!form) continue;
    const std::string macro(form->macro);
    const std::size_t open = line.find('(') + 1;
    if (reject) {
      Case c;
      std::size_t i = open, j = line.find(", ", i);
      c.name = line.substr(i, j - i);
      i = j + 2;
      j = line.find(", ", i);
      const std::string fault = line.substr(i, j - i);
      i = line.find('"', j);
      c.expect = c_string(line, i);
      c.bad = macro + line.substr(i + 2) + "\n";
      by_name[c.name] = {fault, by_fault[fault].size()};
      by_fault[fault].push_back(c);
    } else {
      const std::size_t j = line.find(", ", open);
      const std::string name = line.substr(open, j - open);
      if (auto it = by_name.find(name); it != by_name.end())
        by_fault[it->second.first][it->second.second].good = macro + line.substr(j + 2) + "\n";
    }
  }
  return by_fault;
}

/// The example blocks of tests/dsl/grammar_examples.cpp by topic: the lines after a
/// `// example: TOPIC` line up to the next blank line.
std::map<std::string, std::string> read_examples(const fs::path& file) {
  std::map<std::string, std::string> r;
  std::ifstream is(file);
  std::string line, topic;
  while (std::getline(is, line)) {
    if (line.rfind("// example: ", 0) == 0)
      topic = line.substr(12);
    else if (line.empty())
      topic.clear();
    else if (!topic.empty())
      r[topic] += line + "\n";
  }
  return r;
}

std::string read_file(const fs::path& file) {
  std::ifstream is(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(is), std::istreambuf_iterator<char>()};
}

std::string places(unsigned char p) {
  std::string r;
  for (auto [bit, word] :
       {std::pair{in_match, "match"}, {in_constraint, "constraint"}, {in_replacement, "replacement"}})
    if (p & bit) {
      if (!r.empty()) r += ", ";
      r += word;
    }
  return r;
}

std::string operand_count(const Construct& c) {
  return c.min_args == c.max_args  ? std::to_string(c.min_args)
         : c.max_args == any_count ? std::to_string(c.min_args) + " or more"
                                   : std::to_string(c.min_args) + " to " + std::to_string(c.max_args);
}

/// The node kind the C++ front end builds for a record, if it builds one of its own (names
/// defined by an expansion build their expansion's nodes).
bool kind_of(const Construct& c, Kind& k) {
  if (!c.expansion.empty()) return false;
  if (c.family == Family::CAST) {
    k = c.extra == 's' ? Kind::CastUint : c.extra == 'i' ? Kind::CastInt : Kind::CastFloat;
    return true;
  }
  for (int i = 0; i < static_cast<int>(Kind::Count_); ++i)
    if (kind_name(static_cast<Kind>(i)) == family_name(c.family)) {
      k = static_cast<Kind>(i);
      return true;
    }
  return false;
}

/// What the typing of dsl/node.hpp accepts for a kind given n typed operands: the types each
/// operand may have and the result types, found by trying every combination (operands past n
/// read as ill-typed).
struct Typing {
  std::size_t arity = 0;
  std::vector<std::set<VType>> operands;
  std::set<VType> results;
};
Typing typing(Kind k, std::size_t n) {
  constexpr std::size_t n_types = static_cast<std::size_t>(VType::Bad);
  Typing t;
  t.arity = n;
  t.operands.resize(n);
  std::array<std::size_t, 8> idx{};
  std::array<VType, 8> a;
  a.fill(VType::Bad);
  for (;;) {
    for (std::size_t i = 0; i < n; ++i) a[i] = static_cast<VType>(idx[i]);
    if (const VType v = detail::type_of(k, a.data(), n); v != VType::Bad) {
      t.results.insert(v);
      for (std::size_t i = 0; i < n; ++i) t.operands[i].insert(a[i]);
    }
    std::size_t i = 0;
    while (i < n && ++idx[i] == n_types) idx[i++] = 0;
    if (i == n) break;
  }
  return t;
}

/// The typed operand lists shown for a record: for a fixed count, the longest accepted list not
/// longer than the written operands (strings written before the typed operands are not typed
/// operands); for a range, every accepted list in it; for "N or more", the two shortest
/// non-empty accepted lists.
std::vector<Typing> typings(const Construct& c, Kind k) {
  std::vector<Typing> ok;
  const std::size_t hi = c.max_args == any_count ? 4 : c.max_args;
  for (std::size_t n = 0; n <= hi; ++n)
    if (Typing t = typing(k, n); !t.results.empty()) ok.push_back(std::move(t));
  if (ok.empty()) return ok;
  if (c.max_args == any_count) {
    std::vector<Typing> r;
    for (Typing& t : ok)
      if (t.arity > 0 && r.size() < 2) r.push_back(std::move(t));
    return r.empty() ? std::vector<Typing>{std::move(ok.front())} : r;
  }
  // Operands the typing ignores after the last one it reads are not operands of the node (the
  // strings kept in the node itself): the longest list that ends in a typed operand.
  auto ends_typed = [](const Typing& t) {
    return t.arity == 0 || t.operands.back().size() != static_cast<std::size_t>(VType::Bad);
  };
  if (c.min_args == c.max_args) {
    for (auto it = ok.rbegin(); it != ok.rend(); ++it)
      if (ends_typed(*it)) return {std::move(*it)};
    return {std::move(ok.front())};
  }
  std::vector<Typing> r;
  for (Typing& t : ok)
    if (t.arity >= c.min_args) r.push_back(std::move(t));
  return r.empty() ? std::vector<Typing>{std::move(ok.back())} : r;
}

std::string type_words(std::set<VType> s) {
  if (s.size() == static_cast<std::size_t>(VType::Bad)) return "untyped";
  std::string r;
  auto group = [&](std::initializer_list<VType> g, const char* word) {
    for (VType v : g)
      if (!s.count(v)) return;
    for (VType v : g) s.erase(v);
    r += (r.empty() ? "" : " or ") + std::string(word);
  };
  group({VType::Bool, VType::Int, VType::Size, VType::Float, VType::DType}, "scalar");
  group({VType::OpRef, VType::OpBuild, VType::Shape, VType::NewConst, VType::Repl}, "replacement value");
  for (VType v : s) r += (r.empty() ? "" : " or ") + std::string(vtype_name(v));
  return r;
}

/// "(int or size, opref) → bool" lines for a record, or "" when the front end builds no node of
/// its own for it.
std::string signature(const Construct& c) {
  Kind k{};
  if (!kind_of(c, k)) return "";
  // The constructs that call an external function: their first typed operand is the function
  // (its node carries the kind of value it returns, a detail of the typing).
  const bool calls = k == Kind::ExternalConstraint || k == Kind::ExternalReplace || k == Kind::ShapefnApply ||
                     k == Kind::AutosplitShapefnApply;
  std::string r;
  const std::vector<Typing> ts = typings(c, k);
  for (const Typing& t : ts) {
    if (!r.empty()) r += "<br>";
    r += "(";
    for (std::size_t i = 0; i < t.arity; ++i)
      r += (i ? ", " : "") + (i == 0 && calls ? std::string("function") : type_words(t.operands[i]));
    if (c.max_args == any_count && &t == &ts.back()) r += ", ...";
    r += ") → " + type_words(t.results);
  }
  return r;
}

std::string escape_cell(std::string t) {
  for (std::size_t p = 0; (p = t.find('|', p)) != std::string::npos; p += 2) t.replace(p, 1, "\\|");
  return t;
}

std::string slots(std::string t) {
  for (std::size_t p; (p = t.find("{}")) != std::string::npos;) t.replace(p, 2, "‹…›");
  return t;
}

std::string constructs_table(bool with_topic, const Topic* only) {
  std::ostringstream os;
  os << "| name | where | operands | typed operands → result | stands for |" << (with_topic ? " page |" : "")
     << "\n| --- | --- | --- | --- | --- |" << (with_topic ? " --- |" : "") << "\n";
  for (const auto& c : constructs) {
    if (only && topic_of(c.family) != *only) continue;
    os << "| `" << c.name << "` | " << places(c.places) << " | " << operand_count(c) << " | " << signature(c) << " | ";
    if (!c.expansion.empty()) os << '`' << escape_cell(std::string(c.expansion)) << '`';
    os << " |";
    if (with_topic) {
      const std::string t(topic_name(topic_of(c.family)));
      os << " [" << t << "](" << t << ".md) |";
    }
    os << "\n";
  }
  return os.str();
}

const char* const typing_note =
    "\"typed operands → result\" is what the C++ front end's typing accepts (the typing column of\n"
    "`include/optgrammar/dsl/grammar.hpp` for the regular families, which og-parse reads too, and\n"
    "`type_of` in `dsl/node.hpp` for the others), found by trying every combination of operand\n"
    "types: the operands that are expressions, in order. Names written as strings (an op name, a\n"
    "LET's tag, an option name, a split tag) are mostly not among them; `untyped` marks one the\n"
    "typing does not look at (the arguments of an external function are checked against its\n"
    "parameters instead), and `function` is the function a construct calls. A *scalar* is bool,\n"
    "int, size, float or dtype; a *replacement value* is an opref, an Op, shape or constant\n"
    "construction, or a SELECT of different ones. For a construct that takes any number of operands\n"
    "the two shortest lists are shown (`...`: more of the same). Where a construct allows less than\n"
    "its types say (a constant operand, a place in the replacement), the restrictions name it.\n";

std::string topic_page(Topic t, const std::string& intro, const std::map<std::string, std::string>& examples,
                       const std::map<std::string, std::vector<Case>>& cases) {
  const std::string name(topic_name(t));
  std::ostringstream os;
  // The introduction's first line is the page's title.
  const std::size_t nl = intro.find('\n');
  os << intro.substr(0, nl + 1) << "\n<!-- Generated by tests/dsl/gen_grammar_doc.cpp from tests/dsl/grammar_doc/"
     << name
     << ".md,\n     include/optgrammar/dsl/grammar.hpp, messages.hpp, node.hpp, tests/dsl/grammar_examples.cpp and\n"
        "     tests/dsl/rejections.inc; "
     << regenerate << ". -->\n"
     << intro.substr(nl + 1);
  bool any = false;
  for (const auto& c : constructs) any = any || topic_of(c.family) == t;
  if (any) os << "\n## Constructs\n\n" << typing_note << "\n" << constructs_table(false, &t);
  if (t == Topic::registration) {
    os << "\n## Pass names\n\n| name | priority |\n| --- | --- |\n";
    for (const auto& p : optgrammar::pass_names) os << "| `" << p.name << "` | " << p.priority << " |\n";
    os << "\n## Rule flags\n\n| flag | bit | the rule runs only with the bool graph option |\n| --- | --- | --- |\n";
    for (const auto& f : rule_flags) {
      os << "| `" << f.name << "` | " << f.bit << " | ";
      if (f.option.empty())
        os << "(always runs)";
      else
        os << '`' << f.option << '`';
      os << " |\n";
    }
  }
  if (const auto it = examples.find(name); it != examples.end())
    os << "\n## Example\n\nCompiled as rules by `tests/dsl/grammar_examples.cpp` (test `dsl.examples.*`):\n\n```cpp\n"
       << it->second << "```\n";
  os << "\n## Restrictions and their messages\n\n"
        "Each restriction is checked by both front ends with the same text (`‹…›` is filled with the\n"
        "offending tag, construct, type or number); [messages.md](messages.md) lists them all.\n";
  bool listed = false;
  for (std::size_t i = 1; i < n_faults; ++i) {
    const std::string id(fault_texts[i].id);
    const auto topics = fault_topics(i);
    if (std::find(topics.begin(), topics.end(), name) == topics.end()) continue;
    listed = true;
    os << "\n### " << id << "\n\n`" << fault_texts[i].text << "`\n";
    const auto it = cases.find(id);
    if (it == cases.end()) continue;
    for (const Case& c : it->second)
      os << "\n`" << c.name << "`:\n\n```cpp\n"
         << c.bad << "```\n\nsays: " << c.expect << "\n\nCorrected:\n\n```cpp\n"
         << c.good << "```\n";
  }
  if (!listed)
    os << "\nNo message concerns this family alone: a name defined by others is checked as the\n"
          "expression it stands for.\n";
  return os.str();
}

std::string messages_index() {
  std::ostringstream os;
  os << "# Diagnostics of the rule checker\n\n"
        "<!-- Generated by tests/dsl/gen_grammar_doc.cpp from include/optgrammar/dsl/messages.hpp;\n     "
     << regenerate
     << ". -->\n\n"
        "Every diagnostic about a rule has one entry in the message catalogue\n"
        "(`include/optgrammar/dsl/messages.hpp`): a family name and a text whose `{}` slots are filled\n"
        "with the offending tag, construct, type or number. Both front ends print that text: og-parse as\n"
        "`file:line:col: error: TEXT`, the C++ compiler as one error on the rule's own line naming the\n"
        "family `optgrammar::rule_error::FAMILY` (g++ shows the whole text as its template argument,\n"
        "clang shows the family and the text's first slot). `octal_constant` is a warning; the others\n"
        "are errors. Each family links to the page of the construct family it restricts, which shows\n"
        "the rules of `tests/dsl/rejections.inc` that get it, the exact text and the corrected rule.\n\n"
        "| family | text |\n| --- | --- |\n";
  for (std::size_t i = 1; i < n_faults; ++i) {
    const std::string id(fault_texts[i].id);
    os << "| [`" << id << "`](" << fault_topics(i).front() << ".md#" << id << ") | "
       << escape_cell(slots(std::string(fault_texts[i].text))) << " |\n";
  }
  return os.str();
}

std::string constructs_index() {
  std::ostringstream os;
  os << "# Constructs\n\n"
        "<!-- Generated by tests/dsl/gen_grammar_doc.cpp from include/optgrammar/dsl/grammar.hpp and\n     node.hpp; "
     << regenerate
     << ". -->\n\n"
        "Every name a rule may write, from the construct records both front ends read: where it may\n"
        "appear (a constraint construct is also a scalar operand in a replacement), how many operands\n"
        "it takes, its types, for the names defined by others what they stand for (`$1`, `$2`, ... are\n"
        "the operands; this is also how the canonical form prints them), and the page that describes\n"
        "it.\n\n"
     << typing_note << "\n"
     << constructs_table(true, nullptr);
  return os.str();
}

bool write_or_check(bool check, const fs::path& file, const std::string& want) {
  if (check) {
    if (read_file(file) != want) {
      std::cerr << file.string() << " is stale: " << regenerate << "\n";
      return false;
    }
    std::cout << file.string() << " is current\n";
    return true;
  }
  std::ofstream os(file, std::ios::binary);
  os << want;
  if (!os) {
    std::cerr << "cannot write " << file.string() << "\n";
    return false;
  }
  std::cout << "wrote " << file.string() << "\n";
  return true;
}

/// Every catalogue family is listed on at least one page, and only on pages that exist.
bool fault_topics_complete() {
  bool ok = true;
  for (std::size_t i = 1; i < n_faults; ++i) {
    const auto topics = fault_topics(i);
    if (topics.empty())
      std::cerr << "message family " << fault_texts[i].id << " names no page in dsl/messages.hpp\n", ok = false;
    for (const auto& t : topics) {
      bool known = false;
      for (std::size_t k = 0; k < n_topics; ++k) known = known || topic_name(static_cast<Topic>(k)) == t;
      if (!known) std::cerr << fault_texts[i].id << ": unknown page " << t << "\n", ok = false;
    }
  }
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  const bool check = argc == 6 && std::string(argv[1]) == "--check";
  if (argc != 5 && !check) {
    std::cerr << "usage: og_grammar_doc_gen [--check] REJECTIONS EXAMPLES INTRO_DIR DOCS_DIR\n";
    return 2;
  }
  const fs::path rejections = argv[argc - 4], examples_file = argv[argc - 3], intros = argv[argc - 2],
                 dir = argv[argc - 1];
  if (!fault_topics_complete()) return 2;
  const auto cases = read_cases(rejections);
  const auto examples = read_examples(examples_file);
  bool ok = true;
  for (std::size_t i = 0; i < n_topics; ++i) {
    const Topic t = static_cast<Topic>(i);
    const fs::path intro = intros / (std::string(topic_name(t)) + ".md");
    const std::string text = read_file(intro);
    if (text.rfind("# ", 0) != 0) {
      std::cerr << intro.string() << ": missing, or not starting with a '# ' title\n";
      return 2;
    }
    if (!examples.count(std::string(topic_name(t)))) {
      std::cerr << examples_file.string() << ": no example for " << topic_name(t) << "\n";
      return 2;
    }
    ok = write_or_check(check, dir / (std::string(topic_name(t)) + ".md"), topic_page(t, text, examples, cases)) && ok;
  }
  ok = write_or_check(check, dir / "messages.md", messages_index()) && ok;
  ok = write_or_check(check, dir / "constructs.md", constructs_index()) && ok;
  return ok ? 0 : 1;
}
