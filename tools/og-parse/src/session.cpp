// Session: the files, the diagnostics and the driver of the three phases.
#include "internal.hpp"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <new>
#include <sstream>

#if __has_include(<sys/mman.h>)
#include <sys/mman.h>
#endif

#include <fmt/format.h>
#include <boost/interprocess/file_mapping.hpp>
#include <boost/interprocess/mapped_region.hpp>

namespace og_parse {
namespace {
/// The mapping's pages are mapped when it is made (one system call, not a page fault per page).
#ifdef MAP_POPULATE
constexpr boost::interprocess::map_options_t populate = MAP_POPULATE;
#else
constexpr boost::interprocess::map_options_t populate = boost::interprocess::default_map_options;
#endif

/// Maps the whole pages of [p, p + n) at once, writable: one system call instead of a page fault
/// as each is first written (where the system can; else they fault in as they are written).
void prefault([[maybe_unused]] void* p, [[maybe_unused]] std::size_t n) {
#ifdef MADV_POPULATE_WRITE
  const auto page = static_cast<std::uintptr_t>(boost::interprocess::mapped_region::get_page_size());
  const std::uintptr_t b = (reinterpret_cast<std::uintptr_t>(p) + page - 1) & ~(page - 1);
  const std::uintptr_t e = (reinterpret_cast<std::uintptr_t>(p) + n) & ~(page - 1);
  if (e > b) ::madvise(reinterpret_cast<void*>(b), e - b, MADV_POPULATE_WRITE);
#endif
}
}  // namespace

Session::Session(Options opts) : opts_(opts) {}
Session::~Session() = default;

std::uint32_t Session::add_source(std::string name, std::string text, std::string path) {
  File f;
  f.path = path.empty() ? name : std::move(path);
  f.name = std::move(name);
  f.owned = std::move(text);
  return add_file(std::move(f));
}

std::optional<std::uint32_t> Session::add_mapped_source(std::string name, const std::string& path) {
  namespace ipc = boost::interprocess;
  // A NUL follows the text: the rest of its last page, which the mapping reads as zeros. (Sizes
  // that cannot be mapped so are told before mapping: an exception thrown first in a statically
  // linked process costs the unwinder a sort of every frame description, about 3 ms.)
  std::error_code ec;
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec || size == 0 || size > 0xFFFFFFFEu || size % ipc::mapped_region::get_page_size() == 0) return std::nullopt;
  File f;
  try {
    const ipc::file_mapping file(path.c_str(), ipc::read_only);
    auto region = std::make_shared<ipc::mapped_region>(file, ipc::read_private, 0, static_cast<std::size_t>(size),
                                                       nullptr, populate);
    f.text = std::string_view(static_cast<const char*>(region->get_address()), static_cast<std::size_t>(size));
    if (f.text.data()[f.text.size()] != '\0') return std::nullopt;  // it grew since: read it then
    f.mapping = std::move(region);
  } catch (const ipc::interprocess_exception&) {
    return std::nullopt;
  }
  f.path = path;
  f.name = std::move(name);
  return add_file(std::move(f));
}

std::uint32_t Session::add_file(File f) {
  files_.push_back(std::move(f));
  File& added = files_.back();  // (a short text moves with its string: viewed only once in place)
  if (!added.mapping) added.text = added.owned;
  return static_cast<std::uint32_t>(files_.size() - 1);
}

const std::vector<std::uint32_t>& Session::line_starts(const File& f) const {
  if (!f.line_starts.empty()) return f.line_starts;
  const char* const b = f.text.data();
  const char* const e = b + f.text.size();
  // the lines counted first: the list is made once, not copied to fresh pages as it grows
  f.line_starts.reserve(static_cast<std::size_t>(std::count(b, e, '\n')) + 1);
  f.line_starts.push_back(0);
  for (const char* p = b;
       (p = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(e - p)))) != nullptr;)
    f.line_starts.push_back(static_cast<std::uint32_t>(++p - b));
  return f.line_starts;
}

std::uint32_t Session::line_of(Loc loc) const {
  const File& f = files_.at(loc.file);
  if (f.line_starts.empty() && loc.offset >= f.counted_to) {
    // forward from the last look-up, without the list
    const char* const b = f.text.data();
    const char* const e = b + std::min<std::size_t>(loc.offset, f.text.size());
    for (const char* p = b + f.counted_to;
         (p = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(e - p)))) != nullptr; ++p)
      ++f.counted_lines;
    f.counted_to = static_cast<std::uint32_t>(e - b);
    return f.counted_lines + 1;
  }
  const auto& ls = line_starts(f);
  auto it = std::upper_bound(ls.begin(), ls.end(), loc.offset);
  return static_cast<std::uint32_t>(it - ls.begin());
}

std::uint32_t Session::col_of(Loc loc) const {
  const auto& ls = line_starts(files_.at(loc.file));
  auto it = std::upper_bound(ls.begin(), ls.end(), loc.offset);
  return loc.offset - *(it - 1) + 1;
}

void Session::diag(Loc loc, Severity sev, std::string msg) {
  Diagnostic d;
  d.loc = loc;
  d.line = line_of(loc);
  d.col = col_of(loc);
  d.severity = sev;
  d.message = std::move(msg);
  d.seq = seq_++;
  diags_.push_back(std::move(d));
}

bool Session::has_errors() const noexcept { return error_count() != 0; }

std::size_t Session::error_count() const noexcept {
  return static_cast<std::size_t>(
      std::count_if(diags_.begin(), diags_.end(), [](const Diagnostic& d) { return d.severity == Severity::error; }));
}

std::size_t Session::warning_count() const noexcept { return diags_.size() - error_count(); }

std::string Session::format(const Diagnostic& d) const {
  return fmt::format("{}:{}:{}: {}: {}", files_.at(d.loc.file).name, d.line, d.col,
                     d.severity == Severity::error ? "error" : "warning", d.message);
}

Node* Session::make_node() { return ::new (construct_arena_.allocate(sizeof(Node), alignof(Node))) Node(); }

std::span<Node*> Session::node_list(std::span<Node* const> nodes) {
  if (nodes.empty()) return {};
  auto* p = static_cast<Node**>(construct_arena_.allocate(nodes.size_bytes(), alignof(Node*)));
  std::copy(nodes.begin(), nodes.end(), p);
  return {p, nodes.size()};
}

void* Session::ArenaBlocks::do_allocate(std::size_t bytes, std::size_t align) {
  void* p = std::pmr::new_delete_resource()->allocate(bytes, align);
  mapped = static_cast<char*>(p);
  end = mapped + bytes;
  return p;
}

void Session::ArenaBlocks::do_deallocate(void* p, std::size_t bytes, std::size_t align) {
  std::pmr::new_delete_resource()->deallocate(p, bytes, align);
}

void* Session::allocate(std::size_t bytes, std::size_t align) {
  void* const p = arena_.allocate(bytes, align);
  const char* const e = static_cast<const char*>(p) + bytes;
  if (e > arena_blocks_.mapped && e <= arena_blocks_.end) {
    // the pages of the next 64 KB (at most 16 pages more than the arena holds)
    constexpr std::size_t step = std::size_t{1} << 16;
    const auto page = static_cast<std::uintptr_t>(boost::interprocess::mapped_region::get_page_size());
    const std::uintptr_t ahead = (reinterpret_cast<std::uintptr_t>(e) + step + page - 1) & ~(page - 1);
    char* const to = std::min(arena_blocks_.end, reinterpret_cast<char*>(ahead));
    prefault(arena_blocks_.mapped, static_cast<std::size_t>(to - arena_blocks_.mapped));
    arena_blocks_.mapped = to;
  }
  return p;
}

std::string_view Session::intern(std::string_view s) {
  if (s.empty()) return {};
  auto* p = static_cast<char*>(allocate(s.size(), 1));
  std::memcpy(p, s.data(), s.size());
  return {p, s.size()};
}

const ShapeFn* Session::find_shape_fn(std::string_view name) const {
  // the first annotation of a name is its answer for good; anything else may change
  if (auto it = shapefn_index_.find(name); it != shapefn_index_.end()) return &shapefns_[it->second];
  const std::size_t r = resolution(name);
  if (streaming_) provisional_.emplace(name, r);
  return r == ~std::size_t{0} ? nullptr : &declared_[r - declared_tag];
}

std::size_t Session::resolution(std::string_view name) const {
  if (auto it = shapefn_index_.find(name); it != shapefn_index_.end()) return it->second;
  auto d = declared_index_.find(name);
  return d == declared_index_.end() || !d->second ? ~std::size_t{0} : declared_tag + *d->second;
}

void Session::index_shape_fns() {
  for (; shapefns_indexed_ < shapefns_.size(); ++shapefns_indexed_)
    shapefn_index_.emplace(shapefns_[shapefns_indexed_].name, shapefns_indexed_);
  for (; declared_indexed_ < declared_.size(); ++declared_indexed_) {
    const std::size_t i = declared_indexed_;
    auto [it, fresh] = declared_index_.emplace(declared_[i].name, i);
    if (!fresh && it->second && declared_[*it->second].params != declared_[i].params) it->second.reset();
  }
}

std::optional<std::uint32_t> Session::include_file(const std::string& path) {
  if (auto it = included_.find(path); it != included_.end()) return it->second;
  std::optional<std::uint32_t> r;
  std::error_code ec;
  if (std::filesystem::is_regular_file(path, ec)) {
    r = add_mapped_source(path, path);
    if (!r) {  // read, when it cannot be mapped
      std::ifstream in(path, std::ios::binary);
      std::ostringstream ss;
      ss << in.rdbuf();
      if (in && ss.str().size() <= 0xFFFFFFFEu) r = add_source(path, std::move(ss).str());  // offsets are 32 bits
    }
    if (r) files_.back().included = true;
  }
  included_.emplace(path, r);
  return r;
}

void Session::run() {
  // Only the sources given: scanning them adds the files they include.
  const auto sources = static_cast<std::uint32_t>(files_.size());
  // What reading the sources adds, to be taken back when a construct must be read again.
  const std::size_t diags = diags_.size(), rules = rules_.size(), ops = ops_.size(), tprops = tprops_.size(),
                    porders = porders_.size(), shapefns = shapefns_.size(), declared = declared_.size(),
                    files = files_.size();
  const std::uint64_t seq = seq_;
  const auto included = included_;
  if (!run_sources(sources, true)) {
    // A construct named a function annotated or declared only after it (or declared again,
    // differently): read everything again, every annotation known before any construct is checked.
    diags_.resize(diags);
    rules_.resize(rules);
    ops_.resize(ops);
    tprops_.resize(tprops);
    porders_.resize(porders);
    shapefns_.resize(shapefns);
    declared_.resize(declared);
    files_.resize(files);
    seq_ = seq;
    included_ = included;
    shapefn_index_.clear();
    declared_index_.clear();
    shapefns_indexed_ = declared_indexed_ = 0;
    run_sources(sources, false);
  }
  if (opts_.lint) {
    if (opts_.check_ops) detail::check_rule_ops(*this);
    detail::lint_rules(*this);
  }
  std::stable_sort(diags_.begin(), diags_.end(), [](const Diagnostic& a, const Diagnostic& b) {
    if (a.loc.file != b.loc.file) return a.loc.file < b.loc.file;
    if (a.line != b.line) return a.line < b.line;
    if (a.col != b.col) return a.col < b.col;
    return a.seq < b.seq;
  });
}

bool Session::run_sources(std::uint32_t sources, bool stream) {
  streaming_ = stream;
  provisional_.clear();
  if (stream) {
    // One construct's tokens at a time: the scanner hands each to detail::process_items(). The
    // rules' records are reserved for the rule macros the texts name (a record is 200 bytes:
    // growing the list by copies would hold the records about twice over).
    std::size_t named = 0;
    for (std::uint32_t f = 0; f < sources; ++f) {
      const std::string_view text = files_[f].text;
      for (std::size_t p = text.find("DEF_PACKAGE_OPTIMIZATION"); p != std::string_view::npos;
           p = text.find("DEF_PACKAGE_OPTIMIZATION", p + 24))
        ++named;
    }
    rules_.reserve(rules_.size() + named);
    // (each record is written: its pages mapped at once)
    prefault(rules_.data() + rules_.size(), (rules_.capacity() - rules_.size()) * sizeof(Rule));
    std::vector<detail::Item> items;
    std::vector<detail::Token> toks;
    for (std::uint32_t f = 0; f < sources; ++f) detail::scan_file(*this, f, items, toks, true);
  } else {
    std::vector<std::vector<detail::Item>> items(sources);
    std::vector<std::vector<detail::Token>> toks(sources);
    for (std::uint32_t f = 0; f < sources; ++f) {
      // A file of nothing but rules has about one token per 3.7 bytes: reserving one per 3 spares
      // a file like that a copy of its whole token buffer (pages not reached are never touched).
      toks[f].reserve(files_[f].text.size() / 3);
      detail::scan_file(*this, f, items[f], toks[f], false);
    }
    // the annotations of every file are known before any construct is checked
    index_shape_fns();
    std::size_t item_count = 0;  // most items are rules: their records are not moved as the list grows
    for (const auto& v : items) item_count += v.size();
    rules_.reserve(rules_.size() + item_count);
    for (std::size_t f = 0; f < items.size(); ++f)
      for (const auto& it : items[f]) detail::process_item(*this, it, toks[f]);
  }
  streaming_ = false;
  index_shape_fns();
  for (const auto& [name, r] : provisional_)
    if (resolution(name) != r) return false;
  return true;
}

}  // namespace og_parse
