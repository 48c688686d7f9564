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
  OpNames() = default;
  std::deque<std::string> storage_;  // stable addresses for the views below
  std::vector<std::string_view> names_;
  std::unordered_map<std::string_view, OpNameId> ids_;
};

inline OpNameId intern_op_name(std::string_view s) { return OpNames::instance().intern(s); }
inline std::string_view op_name_of(OpNameId id) { return OpNames::instance().name(id); }

/// Names with a meaning to the framework.
namespace op_names {
inline const OpNameId const_op = intern_op_name("$Const");  ///< constant data
inline const OpNameId input = intern_op_name("Input");      ///< graph input
inline const OpNameId output = intern_op_name("Output");    ///< graph output: never dead
inline const OpNameId out = intern_op_name("$Out");         ///< one output of a multi-output op
inline const OpNameId shape = intern_op_name("$Shape");     ///< a shape made by gen_Shape
}  // namespace op_names

}  // namespace optgrammar
