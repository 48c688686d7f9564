// og-parse: the external rule parser of optgrammar.
//
// Reads op-package source files (C++ text, no compiler or preprocessor needed), finds every
// DEF_PACKAGE_OPTIMIZATION / _WITH_FLAGS, DEF_PACKAGE_OP, DEF_PACKAGE_OP_AND_COST_AND_FLAGS,
// DEF_TENSOR_PROPERTIES, DEF_PACKAGE_PARAM_ORDER and `// :::EXTERNAL_SHAPEFN:::` annotation,
// parses and checks them against the rule grammar (docs/grammar/README.md) and can print
// them in the canonical form (docs/canonical-form.md) or as JSON (docs/og-parse.md).
//
//   og_parse::Session s({.strict = false, .lint = true});
//   s.add_source("relu.cpp", text);
//   s.run();
//   for (const auto& d : s.diagnostics()) std::cerr << s.format(d) << '\n';
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <memory_resource>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include <optgrammar/dsl/flat.hpp>

namespace og_parse {

struct Options {
  bool strict = false;  ///< "should" restrictions broken by shipped packages become errors
  bool lint = true;     ///< shadowed / duplicate rules, tags bound but never used
  /// Rules that cannot match: an op no definition knows, an operand count its definition does not
  /// allow (optgrammar/dsl/op_check.hpp; with lint only). The command line turns it on with lint.
  bool check_ops = false;
  /// Folders searched for #include "..." after the including file's own (the -I options).
  std::vector<std::string> include_dirs = {};
  /// Follow #include "..." at all (off: the input alone is read, as the fuzz target does, so that
  /// what it reads does not depend on the file system).
  bool follow_includes = true;
  /// Keep every checked rule's nodes (Rule::nodes, Rule::spans), which Session::canonical() and
  /// Session::to_json() print. Off, a rule keeps only its lint facts (Rule::lint), and the memory
  /// of a run grows with the rules' count, not with their size: what `og-parse FILE` does when
  /// it prints neither.
  bool keep_trees = true;
};

enum class Severity : std::uint8_t { warning, error };

/// A source position: file index (order of add_source) and byte offset into that file.
struct Loc {
  std::uint32_t file = 0;
  std::uint32_t offset = 0;
};

struct Diagnostic {
  Loc loc;
  std::uint32_t line = 0;  ///< 1-based
  std::uint32_t col = 0;   ///< 1-based byte column
  Severity severity = Severity::error;
  std::string message;
  std::uint64_t seq = 0;  ///< emission order, to keep sorting stable
};

/// Syntactic shape of a node.
enum class NodeKind : std::uint8_t { string, integer, floating, name, call };

/// A node of a rule's tree as parsed (before its names are lowered and checked: Rule holds the
/// checked rule). Nodes and their operand lists live in the session's arena of the construct
/// being read (freed when the next one is read); `text` views the source, a text the session
/// keeps (Session::intern) or a constant of the grammar.
struct Node {
  NodeKind kind = NodeKind::name;
  bool is_size = false;  ///< integer constant with U suffix
  Loc loc;
  std::string_view text;  ///< call name, string value (as written, between its quotes), name
  std::int64_t ival = 0;  ///< integer value (size values are stored as their bit pattern)
  double fval = 0;        ///< float value (already rounded to float)
  std::span<Node*> args;  ///< the operands, a list in the session's arena (Session::node_list)
};

struct PassSpec {
  std::string_view name;    ///< as written (a view of the source)
  int offset = 0;           ///< N of NAME+N (negative for the tolerated NAME-N)
  int priority = 0;         ///< priority of NAME plus offset
  bool has_offset = false;  ///< written as NAME+N or NAME-N (printed even when N is 0)
};

struct Rule {
  Loc loc;  ///< the DEF_PACKAGE_OPTIMIZATION token (or the line-start macro that expands to it)
  std::uint32_t line = 0;
  bool with_flags = false;
  bool valid = false;             ///< false when the rule had an error (it is then not printed)
  bool external_replace = false;  ///< the replacement contains EXTERNAL_REPLACE
  PassSpec pass;
  /// DEF_PACKAGE_OPTIMIZATION_WITH_FLAGS' flags as written (whitespace runs as one space), or "".
  std::string_view flags;
  /// The checked rule in the flat form both front ends check (optgrammar/dsl/flat.hpp): the nodes
  /// of its match, constraint and replacement (names defined by expansion replaced by what they
  /// stand for), each typed, and where each was written; the parts' roots. In the session's arena.
  std::span<optgrammar::dsl::FlatNode> nodes;
  std::span<optgrammar::dsl::Span> spans;
  std::uint32_t match = 0, constraint = 0, replacement = 0;
  /// What the op check (Options::check_ops) reads of the replacement when the nodes are not kept:
  /// the names of the ops it makes (its Op, WrapOp and WrapOpAlways nodes), in the session's arena.
  /// (The match's ops it reads from the lint facts, LintFacts::match.)
  std::span<const std::string_view> made_ops;
  /// What lint compares the rule with the later rules of its group (same pass, same root op) by,
  /// in the session's arena; filled when lint is on.
  struct LintFacts {
    /// A node of the match as lint's generality test and the op check read it
    /// (optgrammar::dsl::FlatNode's fields, its text as a pointer and a 32-bit length: 32 bytes).
    struct MatchNode {
      const char* text = "";   ///< FlatNode::str: its first character
      std::uint32_t size = 0;  ///< FlatNode::str: its length
      std::uint32_t n = 0;
      std::uint32_t end = 0;       ///< the index after its subtree, from the match's root
      optgrammar::dsl::Span span;  ///< where it was written
      optgrammar::dsl::Kind kind = optgrammar::dsl::Kind::Tag;
      bool wildcard = false;
      std::string_view str() const noexcept { return {text, size}; }
    };
    std::span<const MatchNode> match;                   ///< the match, from its root
    std::span<const std::string_view> constraint_tags;  ///< the tags the constraint reads, each once
    /// Hashes of each part's nodes (kind, operand count, constants, text, in order): equal parts
    /// have equal hashes; different ones share a hash with odds of about 2^-64.
    std::uint64_t match_hash = 0, constraint_hash = 0, replacement_hash = 0;
    bool always = false;  ///< the constraint is the constant true
  };
  LintFacts lint;
  // facts for lint
  struct TagUse {
    std::string_view tag;  ///< a view of the source (or of the session's arena)
    Loc loc;
    int match_count = 0;
    int use_count = 0;
  };
  /// The tags the match binds once and nothing else uses, for lint's warning, in the session's
  /// arena (none in most rules, which then allocate nothing here).
  std::span<const TagUse> tags;
};

struct OpDecl {
  Loc loc;
  std::uint32_t line = 0;
  std::string macro;        ///< DEF_PACKAGE_OP or DEF_PACKAGE_OP_AND_COST_AND_FLAGS
  std::string function;     ///< implementation function as written, e.g. impl<float>
  std::string op;           ///< empty when the name is given by a variable (op_variable)
  std::string op_variable;  ///< the variable naming the op, written in place of a string constant
  std::string cost;         ///< DEF_PACKAGE_OP: the framework's default (core/registry.hpp)
  std::vector<std::string> flags;
};

struct TensorProperties {
  Loc loc;
  std::uint32_t line = 0;
  std::string op;
  std::vector<std::string> operands;  ///< operand names of the Op(...) pattern
  std::vector<std::string> outputs;   ///< Outputs("a", ...) right after the Op: output names
  /// property name (Flat, MainMemory, Tcm, Crouton, ...) -> operand names
  std::vector<std::pair<std::string, std::vector<std::string>>> properties;
};

struct ParamOrder {
  Loc loc;
  std::uint32_t line = 0;
  std::string op;           ///< empty when the name is given by a variable (op_variable)
  std::string op_variable;  ///< the variable naming the op, written in place of a string constant
  struct Param {
    std::string name;
    bool mandatory = false;
    std::string default_value;  ///< as written (usually nullptr)
  };
  std::vector<Param> params;
};

/// `// :::EXTERNAL_SHAPEFN::: { R fn(types); }`, or a function's own declaration or definition at
/// namespace scope in a source file (`declared`).
struct ShapeFn {
  Loc loc;
  std::uint32_t line = 0;
  std::string name;
  std::string return_type;
  std::vector<std::string> params;  ///< all parameter types as written (normalized spaces, no names)
  bool declared = false;            ///< read from the function's declaration, not an annotation
};

class Session {
 public:
  explicit Session(Options opts = {});
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  /// Adds a file; `name` is used in diagnostics and output, `path` (default: `name`) locates the
  /// files it includes with #include "...". Returns its index.
  std::uint32_t add_source(std::string name, std::string text, std::string path = {});
  /// Adds the regular file at `path` as add_source() does, its text read where it is (a private,
  /// read-only mapping of the file, its pages mapped at once) instead of copied into memory.
  /// Nothing when it cannot be mapped so (an empty file, a size that is a multiple of the page
  /// size, a file over 4 GiB - 2 bytes, a system error): the caller reads it then. The file must
  /// not change while the session lives.
  std::optional<std::uint32_t> add_mapped_source(std::string name, const std::string& path);
  /// Scans, parses, checks and lints every added file.
  void run();

  const std::vector<Diagnostic>& diagnostics() const noexcept { return diags_; }
  bool has_errors() const noexcept;
  std::size_t error_count() const noexcept;
  std::size_t warning_count() const noexcept;
  std::string format(const Diagnostic& d) const;  ///< "file:line:col: error: message"

  const std::vector<Rule>& rules() const noexcept { return rules_; }
  const std::vector<OpDecl>& ops() const noexcept { return ops_; }
  const std::vector<TensorProperties>& tensor_properties() const noexcept { return tprops_; }
  const std::vector<ParamOrder>& param_orders() const noexcept { return porders_; }
  const std::vector<ShapeFn>& shape_fns() const noexcept { return shapefns_; }

  const std::string& file_name(std::uint32_t file) const { return files_.at(file).name; }
  std::uint32_t line_of(Loc loc) const;
  std::uint32_t col_of(Loc loc) const;

  /// One canonical line without the "file:line: " prefix (docs/canonical-form.md). Needs the
  /// rule's nodes (Options::keep_trees).
  std::string canonical(const Rule& r) const;
  /// Everything as one JSON document (schema in docs/og-parse.md). Needs the rules' nodes
  /// (Options::keep_trees).
  nlohmann::json to_json() const;

  // ---- used by the implementation ----
  struct File {
    std::string name;
    /// The file's text, followed by a NUL: `owned`'s, or that of `mapping` (add_mapped_source).
    std::string_view text;
    std::string owned;
    std::shared_ptr<const void> mapping;
    /// Where its lines start: made by the first look-up behind `counted_to` (a diagnostic's
    /// column, a construct before one looked up already); until then, lines are counted forward.
    mutable std::vector<std::uint32_t> line_starts;
    /// The line breaks before offset `counted_to` are `counted_lines` (the constructs' lines are
    /// looked up in the order of the text: each byte is counted once).
    mutable std::uint32_t counted_to = 0, counted_lines = 0;
    std::string path;       ///< where its #include "..." are looked for from
    bool included = false;  ///< read for an #include, not given as a source
  };
  void diag(Loc loc, Severity sev, std::string msg);
  /// A node of the construct being read (in its arena, which begin_construct() frees).
  Node* make_node();
  /// A copy of `nodes` in the arena of the construct being read, as a node's operand list.
  std::span<Node*> node_list(std::span<Node* const> nodes);
  /// Frees the nodes of the construct read before (what a rule keeps is in the session's arena).
  void begin_construct() { construct_arena_.release(); }
  /// `bytes` of memory that live as long as the session (in its arena).
  void* allocate(std::size_t bytes, std::size_t align);
  /// A copy of `s` that lives as long as the session (in its arena).
  std::string_view intern(std::string_view s);
  const Options& options() const noexcept { return opts_; }
  const File& file(std::uint32_t i) const { return files_[i]; }
  std::vector<Rule>& mutable_rules() noexcept { return rules_; }
  std::vector<OpDecl>& mutable_ops() noexcept { return ops_; }
  std::vector<TensorProperties>& mutable_tensor_properties() noexcept { return tprops_; }
  std::vector<ParamOrder>& mutable_param_orders() noexcept { return porders_; }
  std::vector<ShapeFn>& mutable_shape_fns() noexcept { return shapefns_; }
  /// Functions declared or defined at namespace scope in the sources (no annotation).
  std::vector<ShapeFn>& mutable_declared_fns() noexcept { return declared_; }
  /// The annotation of `name`; else its declaration in the sources, when all its declarations
  /// there agree on the parameters (overloads are left to the compiler); else null. While the
  /// sources are read a construct at a time, it answers from the annotations and declarations
  /// read so far and notes each answer that a later one could change (Session::run checks them).
  const ShapeFn* find_shape_fn(std::string_view name) const;
  /// Indexes the annotations and declarations read since the last call (find_shape_fn's).
  void index_shape_fns();
  /// The file at `path` as an included file (read once per session), or nothing when it cannot
  /// be read.
  std::optional<std::uint32_t> include_file(const std::string& path);

 private:
  /// Adds `f`, its text given (`owned`, or a mapping and `text`): its index.
  std::uint32_t add_file(File f);
  /// `f.line_starts`, made when they are not yet.
  const std::vector<std::uint32_t>& line_starts(const File& f) const;
  Options opts_;
  std::deque<File> files_;  // stable: scanners keep views of the texts while headers are added
  std::map<std::string, std::optional<std::uint32_t>, std::less<>> included_;
  std::vector<Diagnostic> diags_;
  std::vector<Rule> rules_;
  std::vector<OpDecl> ops_;
  std::vector<TensorProperties> tprops_;
  std::vector<ParamOrder> porders_;
  std::vector<ShapeFn> shapefns_;
  std::map<std::string, std::size_t, std::less<>> shapefn_index_;
  std::vector<ShapeFn> declared_;
  std::map<std::string, std::optional<std::size_t>, std::less<>> declared_index_;  ///< nullopt: overloaded
  std::size_t shapefns_indexed_ = 0, declared_indexed_ = 0;  ///< how many of each the indexes hold
  /// What a name resolves to: its annotation's index, `declared_tag` + its declaration's, or ~0.
  std::size_t resolution(std::string_view name) const;
  static constexpr std::size_t declared_tag = std::size_t{1} << 62;
  /// Reading a construct at a time (run_sources): the names find_shape_fn() answered without an
  /// annotation, and its answer (resolution()), which the sources read later may change; each
  /// pair once (rules name the same functions again and again).
  bool streaming_ = false;
  struct NameAnswerHash {
    std::size_t operator()(const std::pair<std::string_view, std::size_t>& p) const noexcept {
      return std::hash<std::string_view>{}(p.first) ^ (p.second * 0x9E3779B97F4A7C15u);
    }
  };
  mutable std::unordered_set<std::pair<std::string_view, std::size_t>, NameAnswerHash> provisional_;
  /// Scans the sources [0, sources) and checks their constructs, each right after it is read
  /// when `stream` (then only one construct's tokens are held at a time). With `stream`, returns
  /// false when a name a construct used resolves differently at the end (a later annotation or
  /// declaration): the run must be repeated without it.
  bool run_sources(std::uint32_t sources, bool stream);
  /// Nodes, their operand lists and the texts of intern(): allocated here and released all at
  /// once with the session (nodes are never destroyed one by one: all they own is in the arena).
  /// Where the arena takes its blocks from (the heap): the last block, and how far allocate() has
  /// mapped its pages, a step ahead of what the arena gives out (a system call per step instead of
  /// a page fault per page).
  struct ArenaBlocks final : std::pmr::memory_resource {
    char* end = nullptr;     ///< the last block's end
    char* mapped = nullptr;  ///< its pages before this one are mapped
    void* do_allocate(std::size_t bytes, std::size_t align) override;
    void do_deallocate(void* p, std::size_t bytes, std::size_t align) override;
    bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override { return this == &other; }
  };
  ArenaBlocks arena_blocks_;
  std::pmr::monotonic_buffer_resource arena_{std::size_t{1} << 16, &arena_blocks_};
  /// The parsed trees of the construct being read, freed for the next one: in a block of the
  /// session's own, which each construct uses again (the heap only for one that needs more).
  static constexpr std::size_t construct_block = std::size_t{1} << 16;
  std::unique_ptr<std::byte[]> construct_block_ = std::make_unique_for_overwrite<std::byte[]>(construct_block);
  std::pmr::monotonic_buffer_resource construct_arena_{construct_block_.get(), construct_block};
  std::uint64_t seq_ = 0;
};

}  // namespace og_parse
