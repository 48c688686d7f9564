// Process-wide interning of op names, so that matching compares integers, never strings.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace optgrammar {

using OpNameId = std::uint32_t;

/// Maps op names ("Conv2d", "q::Add", "$Const") to small dense integers. Rules intern their
/// op names when they register, graphs when ops are created. Not thread-safe: intern names
/// before running graphs on several threads (registration at static initialization does).
class OpNames {
 public:
  static OpNames& instance() {
    static OpNames table;
    return table;
  }
  OpNameId intern(std::string_view s) {
    if (auto it = ids_.find(s); it != ids_.end()) return it->second;
    const std::string& stored = storage_.emplace_back(s);
    auto id = static_cast<OpNameId>(names_.size());
    names_.push_back(stored);
    ids_.emplace(std::string_view(stored), id);
    return id;
  }
  std::optional<OpNameId> find(std::string_view s) const {
    if (auto it = ids_.find(s); it != ids_.end()) return it->second;
    return std::nullopt;
  }
  std::string_view name(OpNameId id) const { return id < names_.size() ? names_[id] : "?"; }
  std::size_t size() const noexcept { return names_.size(); }

 private:
  OpNames();
  std::deque<std::string> storage_;  // stable addresses for the views below
  std::vector<std::string_view> names_;
  std::unordered_map<std::string_view, OpNameId> ids_;
};

inline OpNameId intern_op_name(std::string_view s) { return OpNames::instance().intern(s); }
inline std::string_view op_name_of(OpNameId id) { return OpNames::instance().name(id); }

/// Names with a meaning to the framework. Their ids are fixed: the table interns them first,
/// in this order, so a rule or the driver compares with a constant.
namespace op_names {
inline constexpr OpNameId const_op = 0;  ///< "$Const": constant data
inline constexpr OpNameId input = 1;     ///< "Input": graph input
inline constexpr OpNameId output = 2;    ///< "Output": graph output, never dead
inline constexpr OpNameId out = 3;       ///< "$Out": one output of a multi-output op
inline constexpr OpNameId shape = 4;     ///< "$Shape": a shape made by gen_Shape
/// The spellings of the ids above, in id order.
inline constexpr std::string_view builtin[] = {"$Const", "Input", "Output", "$Out", "$Shape"};
static_assert(std::size(builtin) == shape + 1);
}  // namespace op_names

inline OpNames::OpNames() {
  for (std::string_view s : op_names::builtin) intern(s);
}

}  // namespace optgrammar
