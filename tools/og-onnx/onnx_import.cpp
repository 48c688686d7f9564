// ONNX import: see onnx_import.hpp.
#include "onnx_import.hpp"

#include <optgrammar/ops/definition_verify.hpp>
#include <optgrammar/ops/onnx.hpp>

#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/wire_format_lite.h>

#include <algorithm>
#include <bit>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <optional>
#include <span>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

namespace optgrammar::onnx_import {
namespace {

using Kind = ImportError::Kind;
namespace ev = ops::onnx_eval;

[[noreturn]] void fail(Kind k, const std::string& what) { throw ImportError(k, what); }

std::string type_name(int t) {
  return onnx::TensorProto_DataType_IsValid(t)
             ? onnx::TensorProto_DataType_Name(static_cast<onnx::TensorProto_DataType>(t))
             : std::to_string(t);
}

/// Our dtype for an ONNX element type; nullopt when not imported.
/// The dtype of the empty constant that stands for an absent optional input: the first the
/// input takes (f32 for an input of the op's types).
DType absent_dtype(const optgrammar::ops::onnx::InputSpec& in) {
  for (int t = 0; t < optgrammar::dtype_count; ++t)
    if (in.types.contains(static_cast<DType>(t))) return static_cast<DType>(t);
  return DType::Float32;
}

std::optional<DType> dtype_of(int t) {
  switch (t) {
    case onnx::TensorProto_DataType_FLOAT: return DType::Float32;
    case onnx::TensorProto_DataType_FLOAT16: return DType::Float16;
    case onnx::TensorProto_DataType_BFLOAT16: return DType::BFloat16;
    case onnx::TensorProto_DataType_DOUBLE: return DType::Float64;
    case onnx::TensorProto_DataType_INT8: return DType::Int8;
    case onnx::TensorProto_DataType_UINT8: return DType::UInt8;
    case onnx::TensorProto_DataType_INT16: return DType::Int16;
    case onnx::TensorProto_DataType_UINT16: return DType::UInt16;
    case onnx::TensorProto_DataType_INT32: return DType::Int32;
    case onnx::TensorProto_DataType_INT64: return DType::Int64;
    case onnx::TensorProto_DataType_UINT32: return DType::UInt32;
    case onnx::TensorProto_DataType_UINT64: return DType::UInt64;
    case onnx::TensorProto_DataType_BOOL: return DType::Bool;
    default: return std::nullopt;  // string, complex
  }
}

DType need_dtype(int t, const std::string& where) {
  auto d = dtype_of(t);
  if (!d) fail(Kind::unsupported_type, where + ": element type " + type_name(t) + " is not imported");
  return *d;
}

/// A TensorProto's element type and dims as an output definition.
OutputDef def_of_tensor(const onnx::TensorProto& p, const std::string& where) {
  OutputDef def;
  def.dtype = need_dtype(p.data_type(), where);
  if (p.dims_size() > static_cast<int>(max_rank))
    fail(Kind::invalid, where + ": rank above " + std::to_string(max_rank));
  for (auto d : p.dims()) {
    if (d < 0) fail(Kind::invalid, where + ": negative dim");
    def.dims[def.rank++] = static_cast<std::size_t>(d);
  }
  if (const char* why = def.unrepresentable()) fail(Kind::invalid, where + ": shape cannot be represented: " + why);
  return def;
}

/// A TensorProto's values: every imported element type has ONNX's width, so raw data is copied
/// as it is; the typed fields (float_data, double_data, int64_data, uint64_data, and int32_data for
/// the narrower integers, bool and the bits of float16 and bfloat16) are converted element by
/// element.
engine::Tensor tensor_of(const onnx::TensorProto& p, const std::string& where) {
  engine::Tensor t;
  t.def = def_of_tensor(p, where);
  if (p.data_location() == onnx::TensorProto_DataLocation_EXTERNAL)  // (ExternalData loads it first)
    fail(Kind::invalid, where + ": external tensor data is not read here");
  const std::size_t n = t.def.element_count();
  if (t.def.byte_size() > (std::size_t{1} << 34)) fail(Kind::invalid, where + ": more than 16 GiB of elements");
  t.data.resize(t.def.byte_size());
  static_assert(std::endian::native == std::endian::little, "ONNX raw data is little-endian");
  if (p.has_raw_data()) {
    const std::string& raw = p.raw_data();
    if (raw.size() != t.data.size())
      fail(Kind::invalid,
           where + ": raw data of " + std::to_string(raw.size()) + " bytes for " + std::to_string(n) + " elements");
    if (!raw.empty()) std::memcpy(t.data.data(), raw.data(), raw.size());
    return t;
  }
  auto check = [&](int have) {
    if (static_cast<std::size_t>(have) != n)
      fail(Kind::invalid, where + ": " + std::to_string(have) + " values for " + std::to_string(n) + " elements");
  };
  const DType dt = t.def.dtype;
  switch (p.data_type()) {
    case onnx::TensorProto_DataType_FLOAT:
      check(p.float_data_size());
      if (n) std::memcpy(t.data.data(), p.float_data().data(), 4 * n);
      break;
    case onnx::TensorProto_DataType_DOUBLE:
      check(p.double_data_size());
      if (n) std::memcpy(t.data.data(), p.double_data().data(), 8 * n);
      break;
    case onnx::TensorProto_DataType_INT64:
      check(p.int64_data_size());
      if (n) std::memcpy(t.data.data(), p.int64_data().data(), 8 * n);
      break;
    case onnx::TensorProto_DataType_UINT32:
    case onnx::TensorProto_DataType_UINT64:
      check(p.uint64_data_size());
      for (std::size_t i = 0; i < n; ++i)
        store_int(dt, t.data.data(), i, static_cast<std::int64_t>(p.uint64_data(static_cast<int>(i))));
      break;
    default:  // int32_data: int32 and narrower integers, bool, the bits of float16 and bfloat16
      check(p.int32_data_size());
      for (std::size_t i = 0; i < n; ++i) {
        const std::int32_t v = p.int32_data(static_cast<int>(i));
        store_int(dt == DType::Float16 || dt == DType::BFloat16 ? DType::UInt16 : dt, t.data.data(), i, v);
      }
  }
  return t;
}

/// The output definition of a typed value; nullopt when its shape is not fully known.
std::optional<OutputDef> def_of(const onnx::TypeProto& tp, const std::string& where) {
  if (!tp.has_tensor_type()) fail(Kind::unsupported_type, where + ": not a tensor");
  const auto& tt = tp.tensor_type();
  OutputDef d;
  d.dtype = need_dtype(tt.elem_type(), where);
  if (!tt.has_shape()) return std::nullopt;
  if (tt.shape().dim_size() > static_cast<int>(max_rank))
    fail(Kind::invalid, where + ": rank above " + std::to_string(max_rank));
  for (const auto& dim : tt.shape().dim()) {
    if (!dim.has_dim_value() || dim.dim_value() < 0) return std::nullopt;
    d.dims[d.rank++] = static_cast<std::size_t>(dim.dim_value());
  }
  if (const char* why = d.unrepresentable()) fail(Kind::invalid, where + ": shape cannot be represented: " + why);
  return d;
}

/// A tensor type's shape as the model declares it: "[1, 3, height, ?]" (a named or unknown dim
/// by its name or '?'), or "no shape".
std::string declared_shape(const onnx::TypeProto& t) {
  if (!t.tensor_type().has_shape()) return "no shape";
  std::string s = "[";
  const auto& shape = t.tensor_type().shape();
  for (int k = 0; k < shape.dim_size(); ++k) {
    const auto& dim = shape.dim(k);
    s.append(k ? ", " : "")
        .append(dim.has_dim_value() && dim.dim_value() >= 0 ? std::to_string(dim.dim_value())
                : dim.has_dim_param()                       ? dim.dim_param()
                                                            : "?");
  }
  return s + "]";
}

std::string node_label(const onnx::NodeProto& n, int index) {
  return "node " + std::to_string(index) + (n.name().empty() ? "" : " '" + n.name() + "'") + " (" + n.op_type() + ")";
}

/// Tensors whose data the model keeps in other files (ONNX's external data: the entries
/// `location`, a path relative to the model's folder, `offset` and `length` in bytes): their
/// bytes are read into the tensor as raw data, so that shape inference and the import see an
/// ordinary tensor. A location must stay inside the model's folder (no absolute path, no `..`).
/// A tensor of def's dims held in `bytes` (stored at ONNX's width of `elem`, little-endian, as
/// imported) as a TensorProto of element type `elem` with raw data.
void fill_tensor_proto(const OutputDef& def, std::span<const std::byte> bytes, int elem, onnx::TensorProto& t) {
  t.set_data_type(elem);
  for (std::uint32_t k = 0; k < def.rank; ++k) t.add_dims(static_cast<std::int64_t>(def.dims[k]));
  t.set_raw_data(bytes.data(), bytes.size());
}

class ExternalData {
 public:
  explicit ExternalData(std::filesystem::path dir) : dir_(std::move(dir)) {}

  /// Loads `p`'s data when it is external; `where` names the tensor in messages.
  void load(onnx::TensorProto& p, const std::string& where) {
    if (p.data_location() != onnx::TensorProto_DataLocation_EXTERNAL) return;
    const std::string at = where + ": external data";
    std::string location;
    std::optional<std::uint64_t> offset, length;
    for (const auto& e : p.external_data()) {
      if (e.key() == "location")
        location = e.value();
      else if (e.key() == "offset")
        offset = number(e.value(), at + " offset");
      else if (e.key() == "length")
        length = number(e.value(), at + " length");
    }
    if (location.empty()) fail(Kind::invalid, at + " names no location");
    const std::filesystem::path rel = std::filesystem::path(location).lexically_normal();
    if (rel.is_absolute() || rel.has_root_name() || rel.empty() || *rel.begin() == "..")
      fail(Kind::invalid, at + " location '" + location + "' is not a path inside the model's folder");
    if (dir_.empty())
      fail(Kind::invalid,
           at + " is in '" + location + "', but the model's folder is not known (it was not read from a file)");
    // The tensor's bytes when the model gives no length: its elements at their width (ONNX's).
    const OutputDef def = def_of_tensor(p, where);
    const std::uint64_t width = element_size(def.dtype);
    const std::uint64_t from = offset.value_or(0), len = length.value_or(def.element_count() * width);
    if (len > (std::uint64_t{1} << 34)) fail(Kind::invalid, at + ": more than 16 GiB");
    auto& [stream, size] = open(rel, at);
    if (from > size || len > size - from)
      fail(Kind::invalid, at + " (bytes " + std::to_string(from) + " to " + std::to_string(from + len) + " of '" +
                              location + "') ends past the file's " + std::to_string(size) + " bytes");
    std::string bytes(static_cast<std::size_t>(len), '\0');
    stream.clear();
    stream.seekg(static_cast<std::streamoff>(from));
    if (!stream.read(bytes.data(), static_cast<std::streamsize>(len)))
      fail(Kind::invalid, at + ": cannot read " + std::to_string(len) + " bytes of '" + location + "'");
    p.set_raw_data(std::move(bytes));
    p.clear_external_data();
    p.set_data_location(onnx::TensorProto_DataLocation_DEFAULT);
  }

 private:
  static std::uint64_t number(const std::string& s, const std::string& what) {
    std::uint64_t v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc{} || end != s.data() + s.size())
      fail(Kind::invalid, what + " '" + s + "' is no integer >= 0");
    return v;
  }
  /// A data file, opened once for all the tensors in it, with its size.
  struct File {
    std::ifstream stream;
    std::uint64_t size = 0;
  };
  File& open(const std::filesystem::path& rel, const std::string& at) {
    auto it = files_.find(rel.string());
    if (it != files_.end()) return it->second;
    const std::filesystem::path path = dir_ / rel;
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec))
      fail(Kind::invalid, at + " file '" + rel.string() + "' is not in " + dir_.string() + " (or is no regular file)");
    const auto size = std::filesystem::file_size(path, ec);
    std::ifstream f(path, std::ios::binary);
    if (ec || !f) fail(Kind::invalid, at + ": cannot read '" + path.string() + "'");
    return files_.emplace(rel.string(), File{std::move(f), size}).first->second;
  }

  std::filesystem::path dir_;
  std::unordered_map<std::string, File> files_;
};

/// What ONNX's own shape inference relies on of a node without checking it (it reads past a shape
/// or divides by zero otherwise: crashes found by fuzzing and by og-opt --verify), checked before it
/// runs; `rank(k)` is the rank of input k, -1 when not known. Convolution and pooling nodes:
/// kernel_shape, strides and dilations entries of at least 1, pads entries of at least 0; where the
/// data input has a known rank r, the input must have rank >= 3, a weight input rank r,
/// kernel_shape, strides and dilations r - 2 entries, pads 2 (r - 2). Gemm: A and B of known rank
/// must have rank 2, as every Gemm version takes (its inference crashed on a rank-0 B). An `axis`
/// attribute lies within [-r, r] of a first input of known rank r, but for QuantizeLinear and
/// DequantizeLinear (LayerNormalization's inference crashed on axis -2 of a rank-1 input and on
/// axis -1 of a scalar).
void check_node_before_inference(const onnx::NodeProto& n, const std::function<int(int)>& rank,
                                 const std::string& where) {
  const std::string& op = n.op_type();
  const bool weighted = op == "Conv" || op == "ConvTranspose" || op == "ConvInteger";
  const bool conv_pool = weighted || op == "MaxPool" || op == "AveragePool" || op == "LpPool";
  if (op == "Gemm")
    for (int k = 0; k < 2; ++k)
      if (const int m = rank(k); m >= 0 && m != 2)
        fail(Kind::invalid,
             where + ": input " + (k == 0 ? "A" : "B") + " has rank " + std::to_string(m) + ", Gemm takes rank 2");
  const int r = rank(0);  // -1: not known
  // (ONNX ignores the axis of a per-tensor quantization, whatever the input's rank)
  const bool quantization = op == "QuantizeLinear" || op == "DequantizeLinear";
  // (OneHot's axis counts in its output, of rank r + 1)
  const int lowest = op == "OneHot" ? -r - 1 : -r;
  for (const auto& a : n.attribute())
    if (a.name() == "axis" && a.type() == onnx::AttributeProto_AttributeType_INT && r >= 0 && !quantization &&
        (a.i() < lowest || a.i() > r))
      fail(Kind::invalid, where + ": attribute axis is " + std::to_string(a.i()) + ", outside [" +
                              std::to_string(lowest) + ", " + std::to_string(r) + "] for an input of rank " +
                              std::to_string(r));
  if (!conv_pool) return;
  if (r >= 0 && r < 3)
    fail(Kind::invalid, where + ": the input has rank " + std::to_string(r) + ", at least 3 are needed");
  if (r >= 0 && weighted && n.input_size() > 1) {
    if (const int w = rank(1); w >= 0 && w != r)
      fail(Kind::invalid, where + ": the weight has rank " + std::to_string(w) + ", the input " + std::to_string(r));
  }
  for (const auto& a : n.attribute()) {
    const bool spatial = a.name() == "kernel_shape" || a.name() == "strides" || a.name() == "dilations";
    if (!spatial && a.name() != "pads") continue;
    for (auto v : a.ints())  // ONNX divides by strides and dilations, whether the rank is known or not
      if (v < (spatial ? 1 : 0))
        fail(Kind::invalid, where + ": attribute " + a.name() + " has the entry " + std::to_string(v));
    if (const int want = spatial ? r - 2 : 2 * (r - 2); r >= 0 && a.ints_size() != want)
      fail(Kind::invalid, where + ": attribute " + a.name() + " has " + std::to_string(a.ints_size()) +
                              " entries, the input's rank needs " + std::to_string(want));
  }
}

/// What ONNX's inference function of one node sees: the node's attributes, its inputs' types
/// and, where known at import, their values; it writes the outputs' types.
class NodeInference final : public onnx::InferenceContext {
 public:
  NodeInference(const onnx::NodeProto& n, std::vector<const onnx::TypeProto*> inputs,
                std::function<const onnx::TensorProto*(const std::string&)> data)
      : n_(n),
        inputs_(std::move(inputs)),
        data_(std::move(data)),
        outputs_(static_cast<std::size_t>(n.output_size())) {}

  const onnx::AttributeProto* getAttribute(const std::string& name) const override {
    for (const auto& a : n_.attribute())
      if (a.name() == name) return &a;
    return nullptr;
  }
  std::size_t getNumInputs() const override { return inputs_.size(); }
  const onnx::TypeProto* getInputType(std::size_t k) const override {
    return k < inputs_.size() ? inputs_[k] : nullptr;
  }
  const onnx::TensorProto* getInputData(std::size_t k) const override {
    return k < inputs_.size() && inputs_[k] ? data_(n_.input(static_cast<int>(k))) : nullptr;
  }
  std::size_t getNumOutputs() const override { return outputs_.size(); }
  onnx::TypeProto* getOutputType(std::size_t k) override { return k < outputs_.size() ? &outputs_[k] : nullptr; }
  onnx::GraphInferencer* getGraphAttributeInferencer(const std::string& name) override {
    throw std::runtime_error("graph attribute '" + name + "' is not inferred here");
  }
  const onnx::SparseTensorProto* getInputSparseData(std::size_t) const override { return nullptr; }
  const onnx::TensorShapeProto* getSymbolicInput(std::size_t) const override { return nullptr; }

  std::vector<onnx::TypeProto> take_outputs() { return std::move(outputs_); }

 private:
  const onnx::NodeProto& n_;
  std::vector<const onnx::TypeProto*> inputs_;
  std::function<const onnx::TensorProto*(const std::string&)> data_;
  std::vector<onnx::TypeProto> outputs_;
};

class Importer {
 public:
  Importer(onnx::ModelProto& m, const ImportOptions& o) : model_(m), opt_(o), g_(o.records) {}

  Imported run() {
    Imported out;
    // Every ONNX model states its IR version and holds a graph; bytes without them (an empty
    // file parses as an empty message) are no model.
    if (model_.ir_version() <= 0) fail(Kind::not_a_model, "not an ONNX model: it states no IR version");
    if (!model_.has_graph()) fail(Kind::not_a_model, "not an ONNX model: it has no graph");
    for (const auto& op : model_.opset_import())
      if (op.domain().empty() || op.domain() == "ai.onnx") out.opset = static_cast<int>(op.version());
    opset_ = out.opset;
    if (out.opset > 17)
      fail(Kind::invalid, "opset " + std::to_string(out.opset) + " is above 17, the newest the importer reads");
    auto& gp = *model_.mutable_graph();
    // Fixed input shapes where asked, then ONNX shape inference.
    std::unordered_map<std::string, bool> is_init;
    for (const auto& t : gp.initializer()) is_init[t.name()] = true;
    auto must_be_input = [&](const std::string& name, const char* what) {
      const auto& ins = gp.input();
      if (std::none_of(ins.begin(), ins.end(),
                       [&](const auto& in) { return in.name() == name && !is_init.count(name); })) {
        std::string names;
        for (const auto& in : ins)
          if (!is_init.count(in.name())) names += (names.empty() ? "" : ", ") + in.name();
        fail(Kind::bad_option, std::string("a ") + what + " is given for '" + name +
                                   "', which is no input of the model (its inputs: " + names + ")");
      }
    };
    for (const auto& e : opt_.input_shapes) must_be_input(e.first, "shape");
    for (const auto& e : opt_.input_values) must_be_input(e.first, "value");
    for (auto& in : *gp.mutable_input()) {
      auto it = opt_.input_shapes.find(in.name());
      if (it == opt_.input_shapes.end() || !in.type().has_tensor_type()) continue;
      // A shape of another rank than the model declares would fail later, at the first node
      // that reads the input, in that node's words.
      const auto& declared = in.type().tensor_type();
      if (declared.has_shape() && static_cast<std::size_t>(declared.shape().dim_size()) != it->second.size())
        fail(Kind::bad_option, "the shape given for '" + in.name() + "' has " + std::to_string(it->second.size()) +
                                   " dims, the model's input has " + std::to_string(declared.shape().dim_size()) +
                                   ": " + declared_shape(in.type()));
      auto* shape = in.mutable_type()->mutable_tensor_type()->mutable_shape();
      shape->clear_dim();
      for (auto d : it->second) shape->add_dim()->set_dim_value(static_cast<std::int64_t>(d));
    }
    unclaimed_ops(gp);
    load_external_data(gp);
    check_ranks_before_inference();
    for (const auto* list : {&gp.value_info(), &gp.output()})
      for (const auto& v : *list) declared_[v.name()] = &v.type();
    reserve(gp);
    initializers(gp);
    // Every input without a fixed shape is named at once, with the shape the model declares and
    // a --input-shape that fixes it (its fixed dims as they are, the others 1).
    std::string unfixed, example;
    for (const auto& in : gp.input()) {
      if (is_init.count(in.name())) continue;
      auto d = def_of(in.type(), "input '" + in.name() + "'");
      if (const auto v = opt_.input_values.find(in.name()); v != opt_.input_values.end()) {
        fixed_input(in, d, v->second);
        continue;
      }
      if (!d) {
        const auto& shape = in.type().tensor_type().shape();
        std::string dims;
        for (int k = 0; k < shape.dim_size(); ++k) {
          const auto& dim = shape.dim(k);
          const bool fixed = dim.has_dim_value() && dim.dim_value() >= 0;
          dims.append(k ? "," : "").append(fixed ? std::to_string(dim.dim_value()) : "1");
        }
        unfixed.append(unfixed.empty() ? "'" : ", '")
            .append(in.name())
            .append("' (")
            .append(declared_shape(in.type()))
            .append(")");
        example.append(" --input-shape ").append(in.name()).append("=").append(shape.dim_size() ? dims : "1,1,1,1");
        continue;
      }
      values_[in.name()] = g_.add_input(*d);
      name_ops_since(g_.size() - 1, in.name());
      set_type(in.name(), in.type().tensor_type().elem_type(), *d);
      out.inputs.push_back(in.name());
    }
    if (!unfixed.empty())
      fail(Kind::invalid, "inputs without a fixed shape: " + unfixed + "; give their dims, e.g." + example);
    // Where a later node reads a value: multi-output nodes may leave their other outputs unused.
    note_uses(gp);
    for (const auto& o : gp.output()) used_[o.name()] = true;
    graph_nodes(gp, "");
    out.nodes = static_cast<std::size_t>(gp.node_size());
    for (const auto& o : gp.output()) {
      auto it = values_.find(o.name());
      if (it == values_.end()) fail(Kind::invalid, "graph output '" + o.name() + "' is not computed");
      g_.add_output(it->second);
      name_ops_since(g_.size() - 1, o.name());
      out.outputs.push_back(o.name());
    }
    // What folding left unused: the shape arithmetic that became constants, and the ops and
    // attribute constants it read.
    g_.remove_dead();
    out.graph = std::move(g_);
    return out;
  }

 private:
  /// The ranks of the graph's named values (inputs, outputs, value infos, initializers) that
  /// check_node_before_inference reads, checked for every node before ONNX's inference runs.
  void check_ranks_before_inference() const {
    const auto& gp = model_.graph();
    std::unordered_map<std::string, int> rank;
    auto note = [&](const onnx::ValueInfoProto& v) {
      if (v.type().has_tensor_type() && v.type().tensor_type().has_shape())
        rank[v.name()] = v.type().tensor_type().shape().dim_size();
    };
    for (const auto& v : gp.input()) note(v);
    for (const auto& v : gp.value_info()) note(v);
    for (const auto& v : gp.output()) note(v);  // (a node may read a graph output: a cycle, refused later)
    for (const auto& t : gp.initializer()) rank[t.name()] = t.dims_size();
    int index = 0;
    for (const auto& n : gp.node()) {
      const std::string where = "node " + std::to_string(index++) + " (" + n.op_type() + ")";
      check_node_before_inference(
          n,
          [&](int k) {
            const auto m = k < n.input_size() ? rank.find(n.input(k)) : rank.end();
            return m == rank.end() ? -1 : m->second;
          },
          where);
    }
  }

  /// The op types of the model that the importer does not claim, all at once: the first node of
  /// one, then every such type with its number of nodes (a model's whole gap, not only the
  /// first), its subgraphs' nodes (If branches, Loop bodies) included.
  void unclaimed_ops(const onnx::GraphProto& gp) {
    std::vector<std::pair<std::string, int>> types;  // in order of first appearance
    std::string first;
    unclaimed_ops(gp, "", types, first);
    if (types.empty()) return;
    std::string all;
    for (const auto& [type, count] : types)
      all.append(all.empty() ? "" : ", ")
          .append(type)
          .append(" (")
          .append(std::to_string(count))
          .append(count == 1 ? " node)" : " nodes)");
    fail(Kind::unsupported_op, first + "; the op types it does not claim: " + all);
  }
  static void unclaimed_ops(const onnx::GraphProto& gp, const std::string& scope,
                            std::vector<std::pair<std::string, int>>& types, std::string& first) {
    for (int k = 0; k < gp.node_size(); ++k) {
      const auto& n = gp.node(k);
      const bool other_domain = !n.domain().empty() && n.domain() != "ai.onnx";
      if (n.op_type().empty()) continue;  // no model at all: node() says so where it stands
      for (const auto& a : n.attribute())
        if (a.has_g()) unclaimed_ops(a.g(), scope + node_label(n, k) + ", " + a.name() + ": ", types, first);
      if (!other_domain &&
          (n.op_type() == "Constant" || n.op_type() == "If" || n.op_type() == "Loop" || ops::onnx::find(n.op_type())))
        continue;
      const std::string type = other_domain ? n.domain() + "." + n.op_type() : n.op_type();
      if (first.empty()) first = scope + node_label(n, k) + ": op type '" + type + "' is not claimed by the importer";
      auto it = std::find_if(types.begin(), types.end(), [&](const auto& t) { return t.first == type; });
      if (it == types.end())
        types.emplace_back(type, 1);
      else
        ++it->second;
    }
  }

  /// The tensors of initializers and Constant nodes whose data is in other files, read in.
  void load_external_data(onnx::GraphProto& gp) {
    ExternalData files(opt_.external_data_dir);
    for (auto& t : *gp.mutable_initializer()) files.load(t, "initializer '" + t.name() + "'");
    for (int k = 0; k < gp.node_size(); ++k) {
      auto& n = *gp.mutable_node(k);
      for (auto& a : *n.mutable_attribute())
        if (a.has_t()) files.load(*a.mutable_t(), node_label(n, k) + ": attribute " + a.name());
    }
  }

  /// Input `in` (of definition d, when its shape is known) as the constant `values`.
  void fixed_input(const onnx::ValueInfoProto& in, const std::optional<OutputDef>& d,
                   const std::vector<double>& values) {
    const std::string at = "input '" + in.name() + "'";
    if (!d)
      fail(Kind::bad_option, at + ": a value is given, but its shape is not fixed (give it with --input-shape too)");
    if (d->element_count() != values.size())
      fail(Kind::bad_option, at + ": " + std::to_string(values.size()) + " values are given for its " +
                                 std::to_string(d->element_count()) + " elements");
    std::vector<std::byte> bytes(d->byte_size());
    for (std::size_t i = 0; i < values.size(); ++i) ev::put(d->dtype, bytes.data(), i, values[i]);
    values_[in.name()] = new_const(*d, bytes);
    set_type(in.name(), in.type().tensor_type().elem_type(), *d);
  }

  /// Records the ONNX type of value `name`: element type `elem` and def's dims (what the
  /// inference of the nodes that read it sees).
  void set_type(const std::string& name, int elem, const OutputDef& def) {
    auto& tt = *types_[name].mutable_tensor_type();
    tt.set_elem_type(elem);
    auto& shape = *tt.mutable_shape();
    shape.clear_dim();
    for (std::uint32_t k = 0; k < def.rank; ++k) shape.add_dim()->set_dim_value(static_cast<std::int64_t>(def.dims[k]));
  }

  /// A graph's initializers as constants.
  void initializers(const onnx::GraphProto& gp) {
    for (const auto& t : gp.initializer()) {
      const std::size_t first = g_.size();
      add_const(t.name(), tensor_of(t, "initializer '" + t.name() + "'"));
      name_ops_since(first, t.name());
      set_type(t.name(), t.data_type(), g_.output(values_[t.name()]));
    }
  }

  /// Notes every value a node of gp or of its subgraphs reads.
  void note_uses(const onnx::GraphProto& gp) {
    for (const auto& n : gp.node()) {
      for (const auto& i : n.input()) used_[i] = true;
      for (const auto& a : n.attribute()) {
        if (a.has_g()) note_uses(a.g());
        for (const auto& g : a.graphs()) note_uses(g);
      }
    }
  }

  /// Imports the nodes of a graph (the model's, or an inlined subgraph whose initializers come
  /// first); `scope` prefixes the node labels of a subgraph.
  void graph_nodes(const onnx::GraphProto& gp, const std::string& scope) {
    if (!scope.empty()) initializers(gp);
    int index = 0;
    for (const auto& n : gp.node()) {
      const std::string where = scope + node_label(n, index++);
      const bool plain = n.domain().empty() || n.domain() == "ai.onnx";
      const std::size_t first = g_.size();
      if (plain && n.op_type() == "If")
        inline_if(n, where);
      else if (plain && n.op_type() == "Loop")
        unroll_loop(n, where);
      else
        node(n, where);
      // Provenance: the ops a node became are the node's (an inlined subgraph's nodes name theirs
      // first). A node without a name is named by its first output, which the model names.
      name_ops_since(first, scope + (!n.name().empty() ? n.name() : n.output_size() > 0 ? n.output(0) : where));
    }
  }

  /// Records the ops from index `first` on that have no provenance yet as imported from `source`.
  void name_ops_since(std::size_t first, const std::string& source) {
    const std::string from[] = {source};
    for (std::size_t i = first; i < g_.size(); ++i)
      if (g_.origins().of(static_cast<std::uint32_t>(i)) == Origins::none)
        g_.set_origin(OpRef{static_cast<std::uint32_t>(i)}, "imported", from);
  }

  /// The graph attribute `name` of node n; an error naming the node when it has none.
  static const onnx::GraphProto& subgraph(const onnx::NodeProto& n, std::string_view name, const std::string& where) {
    for (const auto& a : n.attribute())
      if (a.name() == name && a.has_g()) return a.g();
    fail(Kind::invalid, where + ": no graph attribute '" + std::string(name) + "'");
  }

  /// The value of a one-element tensor known at import (a constant, or computed from constants
  /// and shapes); nullopt otherwise.
  std::optional<double> scalar_value(OpRef r) const {
    const OutputDef& d = g_.output(r);
    if (d.element_count() != 1) return std::nullopt;
    if (g_.is_const(r)) return ev::get(d.dtype, g_.payload(r).data(), 0);
    if (const auto* v = known(r)) return ev::get(d.dtype, v->data(), 0);
    return std::nullopt;
  }

  /// Value `to` (an output of an inlined node) is value `from` (of its subgraph).
  void bind(const std::string& to, const std::string& from, const std::string& where) {
    values_[to] = value(from, where);
    types_[to] = types_[from];
  }

  /// An If whose condition is known at import is its branch, inlined; one whose condition
  /// depends on the model's inputs is not claimed (an error naming the node).
  void inline_if(const onnx::NodeProto& n, const std::string& where) {
    if (n.input_size() != 1 || n.input(0).empty())
      fail(Kind::invalid, where + ": an If takes one input, the condition");
    const auto cond = scalar_value(value(n.input(0), where));
    if (!cond)
      fail(Kind::unsupported_op,
           where + ": its condition '" + n.input(0) +
               "' depends on the model's inputs; an If is claimed only when its condition is known at import "
               "(its branch is then inlined)");
    const char* branch = *cond != 0 ? "then_branch" : "else_branch";
    const onnx::GraphProto& g = subgraph(n, branch, where);
    if (g.output_size() != n.output_size())
      fail(Kind::invalid, where + ": " + branch + " has " + std::to_string(g.output_size()) + " outputs, the node " +
                              std::to_string(n.output_size()));
    graph_nodes(g, where + ", " + branch + ": ");
    for (int k = 0; k < n.output_size(); ++k)
      if (!n.output(k).empty()) bind(n.output(k), g.output(k).name(), where);
  }

  /// A Loop whose trip count and condition are known at import is its body, unrolled: each
  /// iteration's loop-carried values feed the next, and each scan output is the iterations'
  /// values stacked on a new first axis (Reshape to [1, ...] and Concat). A trip count or a
  /// condition that depends on the model's inputs is not claimed (an error naming the node).
  void unroll_loop(const onnx::NodeProto& n, const std::string& where) {
    const onnx::GraphProto& body = subgraph(n, "body", where);
    const int carried = n.input_size() - 2;
    if (carried < 0 || body.input_size() != carried + 2 || body.output_size() < carried + 1 ||
        n.output_size() > body.output_size() - 1)
      fail(Kind::invalid, where + ": the body's inputs and outputs do not fit the node's");
    const int scans = body.output_size() - 1 - carried;
    auto depends = [&](const std::string& what) {
      fail(Kind::unsupported_op, where + ": " + what +
                                     " depends on the model's inputs; a Loop is claimed only when its trip " +
                                     "count and condition are known at import (its body is then unrolled)");
    };
    std::optional<double> trips;
    if (!n.input(0).empty() && !(trips = scalar_value(value(n.input(0), where))))
      depends("its trip count '" + n.input(0) + "'");
    std::optional<OpRef> cond;
    if (!n.input(1).empty()) cond = value(n.input(1), where);
    if (!trips && !cond) fail(Kind::invalid, where + ": a Loop with neither a trip count nor a condition never ends");
    std::vector<OpRef> values;
    std::vector<std::string> names;  // where each carried value's type is
    for (int j = 0; j < carried; ++j) {
      values.push_back(value(n.input(2 + j), where));
      names.push_back(n.input(2 + j));
    }
    std::vector<onnx::TypeProto> types;
    for (const auto& name : names) types.push_back(types_[name]);
    std::vector<std::vector<OpRef>> stacked(static_cast<std::size_t>(scans));
    std::vector<int> scan_elem(static_cast<std::size_t>(scans), 0);
    constexpr std::int64_t max_unrolled = 100000;  // iterations times body nodes (at least one each)
    for (std::int64_t i = 0;; ++i) {
      if (trips && static_cast<double>(i) >= *trips) break;
      if (cond) {
        const auto c = scalar_value(*cond);
        if (!c)
          depends(i == 0 ? "its condition '" + n.input(1) + "'"
                         : "its condition after iteration " + std::to_string(i - 1));
        if (*c == 0) break;
      }
      if ((i + 1) * std::max(body.node_size(), 1) > max_unrolled)
        fail(Kind::invalid, where + ": unrolled, it would have more than " + std::to_string(max_unrolled) + " nodes");
      // The body's inputs: the iteration number, the condition, the carried values.
      const auto& iter = body.input(0);
      const int iter_elem = iter.type().tensor_type().elem_type();
      values_[iter.name()] = scalar_const(need_dtype(iter_elem, where + ": iteration number"), static_cast<double>(i));
      set_type(iter.name(), iter_elem, g_.output(values_[iter.name()]));
      const auto& cin = body.input(1);
      if (cond) {
        values_[cin.name()] = *cond;
        set_type(cin.name(), cin.type().tensor_type().elem_type(), g_.output(*cond));
      } else {
        const int elem = cin.type().tensor_type().elem_type();
        values_[cin.name()] = scalar_const(need_dtype(elem, where + ": condition"), 1);
        set_type(cin.name(), elem, g_.output(values_[cin.name()]));
      }
      for (int j = 0; j < carried; ++j) {
        values_[body.input(2 + j).name()] = values[static_cast<std::size_t>(j)];
        types_[body.input(2 + j).name()] = types[static_cast<std::size_t>(j)];
      }
      graph_nodes(body, where + ", iteration " + std::to_string(i) + ": ");
      if (cond || !body.output(0).name().empty()) cond = value(body.output(0).name(), where);
      for (int j = 0; j < carried; ++j) {
        const std::string& name = body.output(1 + j).name();
        values[static_cast<std::size_t>(j)] = value(name, where);
        types[static_cast<std::size_t>(j)] = types_[name];
      }
      for (int k = 0; k < scans; ++k) {
        const std::string& name = body.output(1 + carried + k).name();
        stacked[static_cast<std::size_t>(k)].push_back(value(name, where));
        scan_elem[static_cast<std::size_t>(k)] = types_[name].tensor_type().elem_type();
      }
    }
    for (int j = 0; j < carried && j < n.output_size(); ++j) {
      if (n.output(j).empty()) continue;
      values_[n.output(j)] = values[static_cast<std::size_t>(j)];
      types_[n.output(j)] = types[static_cast<std::size_t>(j)];
    }
    for (int k = 0; k < scans && carried + k < n.output_size(); ++k) {
      const std::string& name = n.output(carried + k);
      if (name.empty()) continue;
      const auto& parts = stacked[static_cast<std::size_t>(k)];
      if (parts.empty())
        fail(Kind::unsupported_op,
             where + ": scan output '" + name + "' of a Loop that runs no iteration is not claimed");
      values_[name] = stack(parts, where);
      set_type(name, scan_elem[static_cast<std::size_t>(k)], g_.output(values_[name]));
    }
  }

  /// The values (of one shape) stacked on a new first axis: each reshaped to [1, ...], then
  /// concatenated.
  OpRef stack(const std::vector<OpRef>& parts, const std::string& where) {
    const OutputDef one = g_.output(parts[0]);
    if (one.rank + 1 > max_rank)
      fail(Kind::invalid, where + ": a scan output of rank " + std::to_string(one.rank) + " stacks above rank " +
                              std::to_string(max_rank));
    OutputDef each = one;
    each.rank = one.rank + 1;
    each.dims = {};
    each.dims[0] = 1;
    for (std::uint32_t k = 0; k < one.rank; ++k) each.dims[k + 1] = one.dims[k];
    std::vector<double> dims;
    for (std::uint32_t k = 0; k < each.rank; ++k) dims.push_back(static_cast<double>(each.dims[k]));
    const OpRef shape = list_const(DType::Int64, dims);
    std::vector<OpRef> reshaped;
    for (const OpRef p : parts) reshaped.push_back(onnx_op("Reshape", {}, {p, shape}, each));
    OutputDef all = each;
    all.dims[0] = parts.size();
    return onnx_op("Concat", {{"axis", 0}}, reshaped, all);
  }

  /// An `onnx.<type>` op the importer makes itself: its attributes' defaults except `set`,
  /// then `inputs`.
  OpRef onnx_op(std::string_view type, std::initializer_list<std::pair<std::string_view, double>> set,
                const std::vector<OpRef>& inputs, const OutputDef& d) {
    const ops::onnx::OpSpec* spec = ops::onnx::find(type);
    std::vector<OpRef> operands;
    for (const auto& a : spec->attrs) {
      const auto it = std::find_if(set.begin(), set.end(), [&](const auto& s) { return s.first == a.name; });
      operands.push_back(it != set.end() ? scalar_const(DType::Int32, it->second)
                                         : attribute(a, nullptr, std::string(type)));
    }
    operands.insert(operands.end(), inputs.begin(), inputs.end());
    return g_.add_op(intern_op_name(ops::onnx::op_name(type)), std::span<const OpRef>(operands), d);
  }

  /// The values the inference of node n sees as input data: constants and values computed at
  /// import, as TensorProtos (made once per value).
  const onnx::TensorProto* data_of(const std::string& name) {
    const auto v = values_.find(name);
    if (v == values_.end()) return nullptr;
    const OpRef r = v->second;
    if (auto it = protos_.find(r.index); it != protos_.end()) return &it->second;
    std::span<const std::byte> bytes;
    if (g_.is_const(r))
      bytes = g_.payload(r);
    else if (const auto* k = known(r))
      bytes = *k;
    else
      return nullptr;
    // Every imported element type is stored at ONNX's width, little-endian: the bytes are ONNX's
    // raw data.
    const OutputDef& d = g_.output(r);
    const int elem = types_[name].tensor_type().elem_type();
    if (dtype_of(elem) != d.dtype) return nullptr;
    onnx::TensorProto& t = protos_[r.index];
    fill_tensor_proto(d, bytes, elem, t);
    return &t;
  }

  /// ONNX's inference of one node (its schema's function, or its function body's), with the
  /// types of its inputs and the values of those known at import: the types of its outputs
  /// (with no element type where it found none).
  std::vector<onnx::TypeProto> infer_node(const onnx::NodeProto& n, const std::string& where) {
    std::vector<const onnx::TypeProto*> in;
    for (const auto& name : n.input()) {
      const auto it = name.empty() ? types_.end() : types_.find(name);
      in.push_back(it == types_.end() ? nullptr : &it->second);
    }
    NodeInference ctx(n, std::move(in), [this](const std::string& name) { return data_of(name); });
    const onnx::OpSchema* schema = onnx::OpSchemaRegistry::Schema(n.op_type(), opset_, "");
    if (!schema) return ctx.take_outputs();
    try {
      if (schema->has_type_and_shape_inference_function())
        schema->GetTypeAndShapeInferenceFunction()(ctx);
      else if (schema->HasFunction())
        onnx::shape_inference::InferShapeForFunctionNode(*schema->GetFunction(), onnx::OpSchemaRegistry::Instance(),
                                                         ctx);
    } catch (const std::exception& e) {
      fail(Kind::invalid, where + ": ONNX shape inference: " + e.what());
    }
    return ctx.take_outputs();
  }

  /// The output definition of output k of node n: from ONNX's inference of the node, else the
  /// type the model declares for it; a shape known from neither is an error naming the node
  /// and the inputs whose values are not known at import. Sets `elem` to its ONNX element type.
  OutputDef output_def(const onnx::NodeProto& n, int k, const std::vector<onnx::TypeProto>& inferred, int& elem,
                       const std::string& where) {
    const std::string at = where + ": output '" + n.output(k) + "'";
    const auto usable = [](const onnx::TypeProto& t) {
      return t.has_tensor_type() && t.tensor_type().elem_type() != 0;
    };
    if (static_cast<std::size_t>(k) < inferred.size() && usable(inferred[static_cast<std::size_t>(k)])) {
      elem = inferred[static_cast<std::size_t>(k)].tensor_type().elem_type();
      if (auto d = def_of(inferred[static_cast<std::size_t>(k)], at)) return *d;
    }
    if (const auto it = declared_.find(n.output(k)); it != declared_.end() && usable(*it->second)) {
      if (elem == 0) elem = it->second->tensor_type().elem_type();
      if (auto d = def_of(*it->second, at)) {
        if (d->dtype != need_dtype(elem, at))
          fail(Kind::invalid, at + ": the model declares element type " +
                                  type_name(it->second->tensor_type().elem_type()) + ", ONNX's inference " +
                                  type_name(elem));
        return *d;
      }
    }
    std::string unknown;
    for (const auto& name : n.input())
      if (!name.empty() && !data_of(name)) unknown.append(unknown.empty() ? "'" : ", '").append(name).append("'");
    // A shape that depends on the values of the model's inputs is not claimed (og-onnx-test
    // skips such a test); one that does not is the import's failure.
    fail(unknown.empty() ? Kind::invalid : Kind::unsupported_op,
         at + ": its shape is not known at import (ONNX's shape inference of the node found none" +
             (unknown.empty() ? std::string(")")
                              : "; inputs whose values are known only when the model runs: " + unknown + ")"));
  }

  /// The value of op r when the import already knows it (computed from constants and known
  /// shapes); nullptr otherwise.
  const std::vector<std::byte>* known(OpRef r) const {
    auto it = known_.find(r.index);
    return it == known_.end() ? nullptr : &it->second;
  }

  /// The value of an op of these operands and output definition when every operand is known
  /// at import (constants, values computed at import; Shape and Size read only their input's
  /// dims) and the output has at most max_evaluated elements; nullopt otherwise.
  std::optional<std::vector<std::byte>> evaluate(OpNameId name, const std::vector<OpRef>& operands,
                                                 const OutputDef& d) const {
    constexpr std::size_t max_evaluated = 4096;
    if (d.element_count() > max_evaluated) return std::nullopt;
    const bool dims_only = name == intern_op_name("onnx.Shape") || name == intern_op_name("onnx.Size");
    std::vector<ops::ValueView> views;
    for (const OpRef in : operands) {
      ops::ValueView v = ops::value_view(g_, in);
      if (!g_.is_const(in)) {
        const auto* data = known(in);
        if (!data && !dims_only) return std::nullopt;
        if (data) v.data = *data;
        v.known = true;
      }
      views.push_back(v);
    }
    const ops::OpDefinition* def = ops::find_definition(name);
    std::vector<std::byte> out(d.byte_size());
    if (!def || !def->eval || !def->eval(ops::OpView{views, &d}, out, ops::Backend::reference)) return std::nullopt;
    return out;
  }

  /// Graph::add_const, with a non-null address for empty data: the graph's payload cache takes
  /// a null address with size 0 for its initial, unused slots and returns payload 0 for it.
  OpRef new_const(const OutputDef& d, std::span<const std::byte> data) {
    static const std::byte none{};
    return g_.add_const(d, data.empty() ? std::span<const std::byte>(&none, 0) : data);
  }
  void add_const(const std::string& name, const engine::Tensor& t) { values_[name] = new_const(t.def, t.data); }

  OpRef scalar_const(DType t, double v) {
    OutputDef d;
    d.dtype = t;
    std::vector<std::byte> b(d.byte_size());
    ev::put(t, b.data(), 0, v);
    return new_const(d, b);
  }
  OpRef list_const(DType t, const std::vector<double>& v) {
    OutputDef d;
    d.dtype = t;
    d.rank = 1;
    d.dims[0] = v.size();
    std::vector<std::byte> b(d.byte_size());
    for (std::size_t i = 0; i < v.size(); ++i) ev::put(t, b.data(), i, v[i]);
    return new_const(d, b);
  }

  OpRef attribute(const ops::onnx::AttrSpec& a, const onnx::AttributeProto* p, const std::string& where) {
    using K = ops::onnx::AttrKind;
    const std::string at = where + ": attribute '" + std::string(a.name) + "'";
    if (!p) {
      if (a.required) fail(Kind::invalid, at + " is required");
      if (a.optional) return list_const(a.kind == K::real ? DType::Float32 : DType::Int32, {});
      switch (a.kind) {
        case K::integer:
        case K::choice: return scalar_const(DType::Int32, a.default_value);
        case K::real: return scalar_const(DType::Float32, a.default_value);
        case K::integers:
        case K::choices: return list_const(DType::Int32, {});
        case K::reals:
        case K::tensor: return list_const(DType::Float32, {});
        case K::text: return list_const(DType::UInt8, {});
      }
    }
    // The index of string s in the attribute's comma-separated choices.
    auto choice_index = [&](const std::string& str) {
      std::string_view rest = a.choices;
      for (int k = 0;; ++k) {
        const auto comma = rest.find(',');
        if (rest.substr(0, comma) == str) return static_cast<double>(k);
        if (comma == std::string_view::npos) break;
        rest.remove_prefix(comma + 1);
      }
      fail(Kind::invalid, at + " is '" + str + "', not one of " + std::string(a.choices));
    };
    auto clamp32 = [](std::int64_t x) {
      return static_cast<double>(std::clamp<std::int64_t>(x, std::numeric_limits<std::int32_t>::min(),
                                                          std::numeric_limits<std::int32_t>::max()));
    };
    switch (a.kind) {
      case K::integer:
        if (p->type() != onnx::AttributeProto_AttributeType_INT) fail(Kind::invalid, at + " is not an int");
        return scalar_const(DType::Int32, clamp32(p->i()));
      case K::real:
        if (p->type() != onnx::AttributeProto_AttributeType_FLOAT) fail(Kind::invalid, at + " is not a float");
        return scalar_const(DType::Float32, p->f());
      case K::integers: {
        if (p->type() != onnx::AttributeProto_AttributeType_INTS) fail(Kind::invalid, at + " is not a list of ints");
        std::vector<double> v;
        for (auto x : p->ints()) v.push_back(clamp32(x));
        return list_const(DType::Int32, v);
      }
      case K::reals: {
        if (p->type() != onnx::AttributeProto_AttributeType_FLOATS)
          fail(Kind::invalid, at + " is not a list of floats");
        std::vector<double> v(p->floats().begin(), p->floats().end());
        return list_const(DType::Float32, v);
      }
      case K::choice:
        if (p->type() != onnx::AttributeProto_AttributeType_STRING) fail(Kind::invalid, at + " is not a string");
        return scalar_const(DType::Int32, choice_index(p->s()));
      case K::choices: {
        if (p->type() != onnx::AttributeProto_AttributeType_STRINGS)
          fail(Kind::invalid, at + " is not a list of strings");
        std::vector<double> v;
        for (const auto& x : p->strings()) v.push_back(choice_index(x));
        return list_const(DType::Int32, v);
      }
      case K::text: {
        if (p->type() != onnx::AttributeProto_AttributeType_STRING) fail(Kind::invalid, at + " is not a string");
        std::vector<double> v(p->s().begin(), p->s().end());
        for (double& c : v) c = static_cast<unsigned char>(static_cast<char>(c));
        return list_const(DType::UInt8, v);
      }
      case K::tensor: {
        if (p->type() != onnx::AttributeProto_AttributeType_TENSOR) fail(Kind::invalid, at + " is not a tensor");
        const engine::Tensor t = tensor_of(p->t(), at);
        return new_const(t.def, t.data);
      }
    }
    fail(Kind::invalid, at + ": unknown kind");
  }

  void constant(const onnx::NodeProto& n, const std::string& where) {
    if (n.attribute_size() != 1 || n.output_size() != 1)
      fail(Kind::invalid, where + ": a Constant has one attribute and one output");
    const auto& a = n.attribute(0);
    const int elem = a.name() == "value"                                       ? a.t().data_type()
                     : a.name() == "value_float" || a.name() == "value_floats" ? onnx::TensorProto_DataType_FLOAT
                                                                               : onnx::TensorProto_DataType_INT64;
    // The other forms, as ONNX types them: float and int64 scalars and 1-d lists.
    auto ints = [&](std::span<const std::int64_t> v, bool scalar) {
      OutputDef d;
      d.dtype = DType::Int64;
      d.rank = scalar ? 0 : 1;
      d.dims[0] = scalar ? 0 : v.size();
      std::vector<std::byte> b(d.byte_size());
      if (!v.empty()) std::memcpy(b.data(), v.data(), b.size());
      return new_const(d, b);
    };
    if (a.name() == "value")
      add_const(n.output(0), tensor_of(a.t(), where));
    else if (a.name() == "value_float")
      values_[n.output(0)] = scalar_const(DType::Float32, a.f());
    else if (a.name() == "value_int") {
      const std::int64_t v = a.i();
      values_[n.output(0)] = ints(std::span<const std::int64_t>(&v, 1), true);
    } else if (a.name() == "value_floats")
      values_[n.output(0)] = list_const(DType::Float32, std::vector<double>(a.floats().begin(), a.floats().end()));
    else if (a.name() == "value_ints")
      values_[n.output(0)] =
          ints(std::span<const std::int64_t>(a.ints().data(), static_cast<std::size_t>(a.ints_size())), false);
    else {
      fail(Kind::unsupported_type, where + ": Constant attribute '" + a.name() + "' is not imported");
    }
    set_type(n.output(0), elem, g_.output(values_[n.output(0)]));
  }

  /// Sizes the graph's storage for the model (Graph::reserve): an op per initializer, input and
  /// node, plus one per operand a node's attributes become.
  void reserve(const onnx::GraphProto& gp) {
    std::size_t ops = static_cast<std::size_t>(gp.initializer_size()) + static_cast<std::size_t>(gp.input_size());
    std::size_t inputs = static_cast<std::size_t>(gp.output_size());
    for (const auto& n : gp.node()) {
      const ops::onnx::OpSpec* spec = ops::onnx::find(n.op_type());
      const std::size_t attrs = spec ? spec->attrs.size() : 0;
      ops += 1 + attrs;
      inputs += static_cast<std::size_t>(n.input_size()) + attrs;
    }
    g_.reserve(ops, inputs);
  }

  OpRef value(const std::string& name, const std::string& where) {
    auto it = values_.find(name);
    if (it == values_.end()) fail(Kind::invalid, where + ": input '" + name + "' is not defined before the node");
    return it->second;
  }

  void node(const onnx::NodeProto& n, const std::string& where) {
    if (n.op_type().empty()) fail(Kind::invalid, where + ": the node has no op type");
    if (!n.domain().empty() && n.domain() != "ai.onnx")
      fail(Kind::unsupported_op,
           where + ": op type '" + n.domain() + "." + n.op_type() + "' is not claimed by the importer");
    if (n.op_type() == "Constant") {
      constant(n, where);
      return;
    }
    const ops::onnx::OpSpec* spec = ops::onnx::find(n.op_type());
    if (!spec) fail(Kind::unsupported_op, where + ": op type '" + n.op_type() + "' is not claimed by the importer");
    if (opset_ < spec->since)
      fail(Kind::unsupported_op, where + ": " + n.op_type() + " of opset " + std::to_string(opset_) +
                                     " is not claimed (from opset " + std::to_string(spec->since) + ")");
    if (!spec->multi_output())
      for (int k = 1; k < n.output_size(); ++k)
        if (!n.output(k).empty() && used_.count(n.output(k)))
          fail(Kind::unsupported_op,
               where + ": output " + std::to_string(k) + " ('" + n.output(k) + "') is used; only the first output of " +
                   n.op_type() + " is claimed" +
                   (n.op_type() == "BatchNormalization" ? " (the others are training mode's)" : ""));
    std::unordered_map<std::string, const onnx::AttributeProto*> attrs;
    for (const auto& a : n.attribute()) attrs[a.name()] = &a;
    std::vector<OpRef> operands;
    for (const auto& a : spec->attrs) {
      auto it = attrs.find(std::string(a.name));
      operands.push_back(attribute(a, it == attrs.end() ? nullptr : it->second, where));
      if (it != attrs.end()) attrs.erase(it);
      // RoiAlign before opset 16 has no coordinate_transformation_mode: it computes as output_half_pixel.
      if (a.name == "coordinate_transformation_mode" && n.op_type() == "RoiAlign" && opset_ < 16)
        operands.back() = scalar_const(DType::Int32, 1);
    }
    const std::optional<std::int64_t> align_b = legacy_attributes(n, attrs, where);
    if (!attrs.empty())
      fail(Kind::invalid, where + ": attribute '" + attrs.begin()->first + "' is not read by the importer");
    const std::size_t na = spec->attr_operands();
    if (spec->multi_output()) operands.push_back(scalar_const(DType::Int32, 0));  // `output`, set per output below
    if (opset_ < 13 && (n.op_type() == "Softmax" || n.op_type() == "LogSoftmax" || n.op_type() == "Hardmax")) {
      // Before opset 13 these flatten the input to 2-d at `axis` (default 1); that is the
      // claimed one-axis op only when the axis is the last one.
      std::int64_t axis = 1;
      for (const auto& a : n.attribute())
        if (a.name() == "axis") axis = a.i();
      const auto rank = static_cast<std::int64_t>(n.input_size() > 0 ? g_.output(value(n.input(0), where)).rank : 0);
      if (axis < 0) axis += rank;
      if (axis != rank - 1)
        fail(Kind::unsupported_op, where + ": " + n.op_type() + " of opset " + std::to_string(opset_) +
                                       " over more than the last axis is not claimed");
      operands[0] = scalar_const(DType::Int32, static_cast<double>(axis));
    }
    int k = 0;
    for (const auto& in : spec->inputs) {
      if (in.variadic) {
        if (k >= n.input_size()) fail(Kind::invalid, where + ": no '" + std::string(in.name) + "' input");
        for (; k < n.input_size(); ++k) operands.push_back(value(n.input(k), where));
        break;
      }
      if (k < n.input_size() && !n.input(k).empty())
        operands.push_back(value(n.input(k), where));
      else if (in.optional)  // of the first input's dtype when the definition asks for it (Clip's bounds)
        operands.push_back(
            list_const(in.like_first && operands.size() > na ? g_.output(operands[na]).dtype : absent_dtype(in), {}));
      else
        fail(Kind::invalid, where + ": input '" + std::string(in.name) + "' is missing");
      ++k;
    }
    if (k < n.input_size())
      fail(Kind::invalid,
           where + ": " + std::to_string(n.input_size()) + " inputs, more than " + n.op_type() + " takes");
    if (align_b) align_second_input(operands, na, *align_b, where);
    if (n.op_type() == "Dropout" && n.input_size() > 2 && !n.input(2).empty()) {
      // Training mode with a ratio of 0 drops nothing (exporters write it for dropout(p=0)).
      const OpRef mode = operands[na + 2];
      const auto ratio = scalar_value(operands[na + 1]);
      if (!g_.is_const(mode) || ev::get(g_.output(mode).dtype, g_.payload(mode).data(), 0) != 0) {
        if (ratio != 0.0)
          fail(Kind::unsupported_op,
               where +
                   ": Dropout in training mode (a training_mode input that is not a constant false) is "
                   "not claimed unless its ratio is a constant 0: its mask is random");
        operands[na + 2] = scalar_const(DType::Bool, 0);  // the same results as inference
      }
    }
    if (std::all_of(n.output().begin(), n.output().end(), [](const std::string& o) { return o.empty(); }))
      fail(Kind::invalid, where + ": no output");
    // One op per output: the first, and each further one that is used (multi-output ops).
    const auto inferred = infer_node(n, where);
    const OpNameId id = intern_op_name(ops::onnx::op_name(n.op_type()));
    for (int k = 0; k < (spec->multi_output() ? n.output_size() : 1); ++k) {
      const std::string& name = n.output(k);
      if (name.empty() || (k > 0 && !used_.count(name))) continue;
      if (spec->multi_output()) operands[na - 1] = scalar_const(DType::Int32, k);
      int elem = 0;
      const OutputDef d = output_def(n, k, inferred, elem, where);
      // Shape arithmetic (a value computed from Shape or Size and constants) becomes a
      // constant; other values known at import (ops on constants alone) stay ops, their values
      // kept for the inference of the nodes after them.
      auto v = evaluate(id, operands, d);
      const bool shape_arithmetic =
          v && (id == intern_op_name("onnx.Shape") || id == intern_op_name("onnx.Size") ||
                std::any_of(operands.begin(), operands.end(), [&](OpRef o) { return shape_values_.count(o.index); }));
      OpRef r;
      if (shape_arithmetic) {
        r = new_const(d, *v);
        shape_values_.insert(r.index);
      } else {
        r = g_.add_op(id, std::span<const OpRef>(operands), d);
        if (v) known_[r.index] = std::move(*v);
      }
      values_[name] = r;
      set_type(name, elem, d);
    }
  }

  /// Attributes of older opsets that newer ones dropped: read here, so that each op keeps one
  /// operand layout (docs/onnx.md, "Older opsets"). `consumed_inputs` (a memory hint) and Gemm's
  /// `broadcast` (C broadcasts either way) change nothing; `is_test` 1 and `spatial` 1 are
  /// inference as claimed (0: training mode and per-element statistics are not claimed). A binary
  /// op's `broadcast` 1 lines B up with A from `axis` on (default: the last dims, numpy's way):
  /// the returned axis, where align_second_input reshapes B. PRelu before opset 7 takes a slope of
  /// one value per channel (A's dim 1).
  std::optional<std::int64_t> legacy_attributes(const onnx::NodeProto& n,
                                                std::unordered_map<std::string, const onnx::AttributeProto*>& attrs,
                                                const std::string& where) {
    std::optional<std::int64_t> align;
    auto take = [&](const char* name) -> const onnx::AttributeProto* {
      auto it = attrs.find(name);
      if (it == attrs.end() || opset_ >= 9) return nullptr;
      const onnx::AttributeProto* a = it->second;
      attrs.erase(it);
      return a;
    };
    take("consumed_inputs");
    if (const auto* a = take("is_test"); a && a->i() == 0)
      fail(Kind::unsupported_op, where + ": is_test 0 (training mode) is not claimed");
    if (const auto* a = take("spatial"); a && a->i() == 0)
      fail(Kind::unsupported_op, where + ": spatial 0 (statistics per element) is not claimed");
    const auto* axis = attrs.count("axis") && attrs.count("broadcast") ? take("axis") : nullptr;
    if (const auto* b = take("broadcast"); b && b->i() != 0 && n.op_type() != "Gemm" && n.input_size() == 2) {
      const auto ra = static_cast<std::int64_t>(g_.output(value(n.input(0), where)).rank);
      const auto rb = static_cast<std::int64_t>(g_.output(value(n.input(1), where)).rank);
      align = axis ? axis->i() : ra - rb;
      if (*align < 0) *align += ra;
    }
    if (n.op_type() == "PRelu" && opset_ < 7 && n.input_size() == 2) {
      const OutputDef &x = g_.output(value(n.input(0), where)), &slope = g_.output(value(n.input(1), where));
      if (x.rank > 2 && slope.rank == 1 && slope.dims[0] == x.dims[1] && slope.dims[0] != 1) align = 1;
    }
    return align;
  }

  /// Input 1 (after the `na` attribute operands) reshaped so that numpy broadcasting lines its
  /// dims up with input 0's from `axis` on: trailing dims of 1 appended (a constant is imported
  /// so; another value gets an onnx.Reshape).
  void align_second_input(std::vector<OpRef>& operands, std::size_t na, std::int64_t axis, const std::string& where) {
    const OutputDef& a = g_.output(operands[na]);
    OutputDef b = g_.output(operands[na + 1]);
    if (axis < 0 || axis + static_cast<std::int64_t>(b.rank) > static_cast<std::int64_t>(a.rank))
      fail(Kind::invalid, where + ": broadcast axis " + std::to_string(axis) + " does not fit B of rank " +
                              std::to_string(b.rank) + " into A of rank " + std::to_string(a.rank));
    const auto trailing = static_cast<std::uint32_t>(a.rank - static_cast<std::uint32_t>(axis) - b.rank);
    if (trailing == 0) return;
    for (std::uint32_t k = 0; k < trailing; ++k) b.dims[b.rank++] = 1;
    const OpRef in = operands[na + 1];
    if (g_.is_const(in)) {
      const auto bytes = g_.payload(in);
      operands[na + 1] = new_const(b, std::vector<std::byte>(bytes.begin(), bytes.end()));
      return;
    }
    OutputDef shape;
    shape.dtype = DType::Int64;
    shape.rank = 1;
    shape.dims[0] = b.rank;
    std::vector<std::byte> dims(shape.byte_size());
    for (std::uint32_t k = 0; k < b.rank; ++k)
      store_int(DType::Int64, dims.data(), k, static_cast<std::int64_t>(b.dims[k]));
    const OpRef reshape_operands[] = {scalar_const(DType::Int32, 0), in, new_const(shape, dims)};
    operands[na + 1] =
        g_.add_op(intern_op_name(ops::onnx::op_name("Reshape")), std::span<const OpRef>(reshape_operands), b);
  }

  onnx::ModelProto& model_;
  const ImportOptions& opt_;
  int opset_ = 0;
  Graph g_;
  std::unordered_map<std::string, OpRef> values_;
  /// The ONNX types of the values defined so far (element type and the dims imported).
  std::unordered_map<std::string, onnx::TypeProto> types_;
  /// The types the model declares (value_info, graph outputs).
  std::unordered_map<std::string, const onnx::TypeProto*> declared_;
  std::unordered_map<std::string, bool> used_;                       ///< values some node or graph output reads
  std::unordered_map<std::uint32_t, std::vector<std::byte>> known_;  ///< by op index
  std::unordered_set<std::uint32_t> shape_values_;                   ///< constants made from shape arithmetic
  std::unordered_map<std::uint32_t, onnx::TensorProto> protos_;      ///< data_of's, by op index
};

}  // namespace

namespace {
/// Adds `NAME=V0,V1,...` to `to` (the values read as T by from_chars); false, adding nothing,
/// when spec is not of that form: an empty name, a missing or empty value, one that is no T.
template <class T>
bool add_named_list(std::string_view spec, std::map<std::string, std::vector<T>>& to) {
  const auto eq = spec.find('=');
  if (eq == std::string_view::npos || eq == 0) return false;
  std::vector<T> values;
  for (std::size_t at = eq + 1;;) {
    const std::size_t comma = std::min(spec.find(',', at), spec.size());
    T v{};
    const auto [end, ec] = std::from_chars(spec.data() + at, spec.data() + comma, v);
    if (comma == at || ec != std::errc{} || end != spec.data() + comma) return false;
    values.push_back(v);
    if (comma == spec.size()) break;
    at = comma + 1;
  }
  to[std::string(spec.substr(0, eq))] = std::move(values);
  return true;
}
}  // namespace

bool ImportOptions::add_input_value(std::string_view spec) { return add_named_list(spec, input_values); }

bool ImportOptions::add_input_shape(std::string_view spec) { return add_named_list(spec, input_shapes); }

Imported import_file(const std::string& path, const ImportOptions& options) {
  std::ifstream is(path, std::ios::binary);
  if (!is) fail(Kind::invalid, "cannot read " + path);
  // Copied through the stream buffer in blocks (reading character by character through
  // istreambuf_iterator cost about as much as the whole import of a 4.7 MB model).
  std::ostringstream buffer;
  if (is.peek() != std::char_traits<char>::eof()) buffer << is.rdbuf();
  if (is.bad() || buffer.bad()) fail(Kind::invalid, "cannot read " + path);
  return import_file_bytes(std::move(buffer).str(), path, options);
}

Imported import_file_bytes(std::string_view bytes, const std::string& path, const ImportOptions& options) {
  if (!options.external_data_dir.empty()) return import_bytes(bytes, path, options);
  ImportOptions o = options;
  o.external_data_dir = std::filesystem::absolute(std::filesystem::path(path)).parent_path().string();
  return import_bytes(bytes, path, o);
}

namespace {
/// Why bytes that do not parse as a ModelProto are no model, where it can be told: a file that
/// stands for the model (a Git LFS pointer, a web page saved by a failed download), or a model
/// cut short (a top-level field whose length runs past the end). Empty otherwise.
std::string why_no_model(std::string_view bytes) {
  const auto starts = [&](std::string_view p) { return bytes.substr(0, p.size()) == p; };
  if (starts("version https://git-lfs"))
    return ": it is a Git LFS pointer file, which stands for the model (fetch the model itself, e.g. `git lfs pull`)";
  std::string_view head = bytes.substr(0, 512);
  head.remove_prefix(std::min(head.find_first_not_of(" \t\r\n"), head.size()));
  if (head.starts_with("<!DOCTYPE") || head.starts_with("<!doctype") || head.starts_with("<html") ||
      head.starts_with("<?xml"))
    return ": it is an HTML or XML page (a download that fetched a web page?)";
  namespace wf = google::protobuf::internal;
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const std::uint8_t*>(bytes.data()),
                                            static_cast<int>(bytes.size()));
  for (;;) {
    const std::uint32_t tag = in.ReadTag();
    if (tag == 0) return {};
    if (wf::WireFormatLite::GetTagWireType(tag) != wf::WireFormatLite::WIRETYPE_LENGTH_DELIMITED) {
      if (!wf::WireFormatLite::SkipField(&in, tag)) return {};
      continue;
    }
    std::uint32_t len = 0;
    if (!in.ReadVarint32(&len)) return {};
    const std::size_t left = bytes.size() - static_cast<std::size_t>(in.CurrentPosition());
    if (len > left)
      return ": it ends inside its field " + std::to_string(wf::WireFormatLite::GetTagFieldNumber(tag)) +
             ", which states " + std::to_string(len) + " bytes where " + std::to_string(left) +
             " are left (a truncated file?)";
    if (!in.Skip(static_cast<int>(len))) return {};
  }
}
}  // namespace

Imported import_bytes(std::string_view bytes, const std::string& name, const ImportOptions& options) {
  onnx::ModelProto m;
  if (bytes.size() > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    fail(Kind::invalid, name +
                            " is not an ONNX model: it is larger than 2 GiB, which protobuf cannot read (keep the "
                            "weights outside it as ONNX's external data)");
  if (!m.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    fail(Kind::not_a_model, name + " is not an ONNX model" + why_no_model(bytes));
  try {
    return Importer(m, options).run();
  } catch (const ImportError& e) {
    throw ImportError(e.kind, name + ": " + e.what());
  }
}

namespace {
/// The ONNX element type a dtype is stored as (a quantized dtype: the integer type of its width and
/// signedness); 0 for none.
int elem_of(DType d) {
  const DTypeInfo& info = dtype_info(d);
  for (int t = 1; t <= onnx::TensorProto_DataType_DataType_MAX; ++t) {
    const auto mine = dtype_of(t);
    if (!mine) continue;
    const DTypeInfo& m = dtype_info(*mine);
    if (*mine == d || (info.kind == DTypeKind::quantized && m.kind == DTypeKind::integer && m.size == info.size &&
                       m.is_signed == info.is_signed))
      return t;
  }
  return 0;
}

/// Choice k of an attribute's comma-separated choices.
std::string choice_text(std::string_view choices, std::size_t k) {
  for (; k > 0 && choices.find(',') != std::string_view::npos; --k) choices.remove_prefix(choices.find(',') + 1);
  return std::string(choices.substr(0, choices.find(',')));
}

/// A constant of g as a TensorProto of its storage type.
void tensor_proto(const Graph& g, OpRef c, onnx::TensorProto& t) {
  fill_tensor_proto(g.output(c), g.payload(c), elem_of(g.output(c).dtype), t);
}
}  // namespace

std::vector<int> tied_types(std::string_view op_name) {
  if (!op_name.starts_with("onnx.")) return {};
  const ops::onnx::OpSpec* spec = ops::onnx::find(op_name.substr(5));
  const onnx::OpSchema* schema = spec ? onnx::OpSchemaRegistry::Schema(std::string(spec->type), 17, "") : nullptr;
  if (!schema) return {};
  const auto& formal = schema->inputs();
  const std::size_t first = spec->attr_operands();
  std::vector<int> tied(first + spec->inputs.size(), -1);
  for (std::size_t j = 0; j < spec->inputs.size() && j < formal.size(); ++j)
    for (std::size_t i = 0; i < j; ++i)
      if (formal[i].GetTypeStr() == formal[j].GetTypeStr()) {
        tied[first + j] = static_cast<int>(first + i);
        break;
      }
  return tied;
}

std::optional<OutputDef> infer_output(const Graph& g, OpRef r, std::string* error) {
  using K = ops::onnx::AttrKind;
  const std::string_view name = g.name(r);
  if (!name.starts_with("onnx.")) return std::nullopt;
  const ops::onnx::OpSpec* spec = ops::onnx::find(name.substr(5));
  if (!spec || g.n_inputs(r) < spec->attr_operands()) return std::nullopt;
  onnx::NodeProto n;
  n.set_op_type(std::string(spec->type));
  const ops::OpDefinition* def = ops::find_definition(name);
  const auto values = [&](OpRef c) {
    std::vector<double> v(g.output(c).element_count());
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = ev::get(g.output(c).dtype, g.payload(c).data(), i);
    return v;
  };
  for (std::size_t k = 0; k < spec->attrs.size(); ++k) {
    const ops::onnx::AttrSpec& a = spec->attrs[k];
    const OpRef c = g.input(r, static_cast<std::uint32_t>(k));
    if (!g.is_const(c)) return std::nullopt;
    const std::vector<double> v = values(c);
    if (v.empty()) continue;  // absent: ONNX's default
    // an integer or a choice's index that no int64 or no choice is (the definition's count of
    // choices): the operands are rejected (converting it would be undefined)
    const bool indexed = a.kind == K::choice || a.kind == K::choices;
    const double choices = def && k < def->operands.size() ? def->operands[k].choices : 0;
    if (indexed || a.kind == K::integer || a.kind == K::integers)
      for (double x : v)
        if (!(x >= (indexed ? 0.0 : -0x1p63) && x < (indexed ? choices : 0x1p63))) {
          if (error)
            *error = std::string(name) + ": attribute " + std::string(a.name) + " holds " + std::to_string(x) +
                     (indexed ? ", no index of its choices" : ", no 64-bit integer");
          return std::nullopt;
        }
    onnx::AttributeProto& p = *n.add_attribute();
    p.set_name(std::string(a.name));
    switch (a.kind) {
      case K::integer:
        p.set_type(onnx::AttributeProto_AttributeType_INT), p.set_i(static_cast<std::int64_t>(v[0]));
        break;
      case K::real: p.set_type(onnx::AttributeProto_AttributeType_FLOAT), p.set_f(static_cast<float>(v[0])); break;
      case K::integers:
        p.set_type(onnx::AttributeProto_AttributeType_INTS);
        for (double x : v) p.add_ints(static_cast<std::int64_t>(x));
        break;
      case K::reals:
        p.set_type(onnx::AttributeProto_AttributeType_FLOATS);
        for (double x : v) p.add_floats(static_cast<float>(x));
        break;
      case K::choice:
        p.set_type(onnx::AttributeProto_AttributeType_STRING),
            p.set_s(choice_text(a.choices, static_cast<std::size_t>(v[0])));
        break;
      case K::choices:
        p.set_type(onnx::AttributeProto_AttributeType_STRINGS);
        for (double x : v) p.add_strings(choice_text(a.choices, static_cast<std::size_t>(x)));
        break;
      case K::text: {
        std::string text;
        for (double x : v) text += static_cast<char>(static_cast<unsigned char>(x));
        p.set_type(onnx::AttributeProto_AttributeType_STRING), p.set_s(text);
        break;
      }
      case K::tensor: p.set_type(onnx::AttributeProto_AttributeType_TENSOR), tensor_proto(g, c, *p.mutable_t()); break;
    }
  }
  std::size_t output = 0;
  if (spec->multi_output()) {
    const OpRef c = g.input(r, static_cast<std::uint32_t>(spec->attrs.size()));
    if (!g.is_const(c) || g.output(c).element_count() != 1) return std::nullopt;
    const double k = values(c)[0];
    const bool any_number = spec->outputs.back().ends_with("...");
    if (!(k >= 0) || k >= (any_number ? 256.0 : static_cast<double>(spec->outputs.size()))) {
      if (error) *error = std::string(name) + " has no output " + std::to_string(k);
      return std::nullopt;
    }
    output = static_cast<std::size_t>(k);
  }
  for (std::size_t k = 0; k <= output; ++k) n.add_output("out" + std::to_string(k));
  // The inputs: an empty constant in an optional input's slot is an absent input.
  std::vector<onnx::TypeProto> types(g.n_inputs(r));
  std::map<std::string, onnx::TensorProto> data;
  std::vector<const onnx::TypeProto*> in;
  for (std::uint32_t k = static_cast<std::uint32_t>(spec->attr_operands()); k < g.n_inputs(r); ++k) {
    const OpRef x = g.input(r, k);
    const OutputDef& d = g.output(x);
    const std::size_t slot = k - spec->attr_operands();
    const bool optional = slot < spec->inputs.size() && spec->inputs[slot].optional;
    if (optional && g.is_const(x) && d.element_count() == 0) {
      n.add_input("");
      in.push_back(nullptr);
      continue;
    }
    const std::string input = "in" + std::to_string(k);
    n.add_input(input);
    auto& tt = *types[k].mutable_tensor_type();
    tt.set_elem_type(elem_of(d.dtype));
    tt.mutable_shape();  // (a scalar has a shape of no dims)
    for (std::uint32_t j = 0; j < d.rank; ++j)
      tt.mutable_shape()->add_dim()->set_dim_value(static_cast<std::int64_t>(d.dims[j]));
    if (g.is_const(x)) tensor_proto(g, x, data[input]);
    in.push_back(&types[k]);
  }
  const auto rank_of = [&](int k) {
    return k < static_cast<int>(in.size()) && in[static_cast<std::size_t>(k)]
               ? types[spec->attr_operands() + static_cast<std::size_t>(k)].tensor_type().shape().dim_size()
               : -1;
  };
  try {
    check_node_before_inference(n, rank_of, std::string(name));
  } catch (const ImportError& e) {
    if (error) *error = e.what();
    return std::nullopt;
  }
  NodeInference ctx(n, std::move(in), [&](const std::string& input) -> const onnx::TensorProto* {
    const auto it = data.find(input);
    return it == data.end() ? nullptr : &it->second;
  });
  try {
    // Opset 17's version, or a later one when the op is given an input only that one reads
    // (ReduceMean's axes from opset 18; the table's ops keep ONNX's input order across versions).
    const onnx::OpSchema* schema = onnx::OpSchemaRegistry::Schema(n.op_type(), 17, "");
    if (schema && n.input_size() > schema->max_input())
      schema = onnx::OpSchemaRegistry::Schema(n.op_type(), std::numeric_limits<int>::max(), "");
    if (!schema || n.input_size() > schema->max_input()) return std::nullopt;
    schema->CheckInputOutputType(ctx);  // the element types its type constraints take (Mul: both of one type)
    if (schema->has_type_and_shape_inference_function())
      schema->GetTypeAndShapeInferenceFunction()(ctx);
    else if (schema->HasFunction())
      onnx::shape_inference::InferShapeForFunctionNode(*schema->GetFunction(), onnx::OpSchemaRegistry::Instance(), ctx);
    else
      return std::nullopt;
    const std::vector<onnx::TypeProto> out = ctx.take_outputs();
    if (output >= out.size() || !out[output].has_tensor_type() || out[output].tensor_type().elem_type() == 0)
      return std::nullopt;
    std::optional<OutputDef> result = def_of(out[output], std::string(name));
    // ONNX saw quantized data as the integers it is stored as: an output of that integer type is
    // the first data input's quantized type, with its encoding, where the op's result may be it.
    if (result && g.n_inputs(r) > spec->attr_operands()) {
      const OutputDef& x = g.output(g.input(r, static_cast<std::uint32_t>(spec->attr_operands())));
      const bool may_be = !def || def->result.rule != ops::TypeRule::in_set || def->result.types.contains(x.dtype);
      if (is_quantized(x.dtype) && may_be && out[output].tensor_type().elem_type() == elem_of(x.dtype)) {
        result->dtype = x.dtype;
        result->zero_offset = x.zero_offset;
        result->stepsize = x.stepsize;
      }
    }
    return result;
  } catch (const std::exception& e) {
    if (error) *error = e.what();
    return std::nullopt;
  }
}

engine::Tensor read_tensor_file(const std::string& path, std::string* name) {
  std::ifstream is(path, std::ios::binary);
  if (!is) fail(Kind::invalid, "cannot read " + path);
  onnx::TensorProto p;
  if (!p.ParseFromIstream(&is)) fail(Kind::invalid, path + " is not a serialized TensorProto");
  if (name) *name = p.name();
  return tensor_of(p, path);
}

}  // namespace optgrammar::onnx_import
