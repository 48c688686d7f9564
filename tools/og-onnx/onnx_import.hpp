// ONNX import for the tools: reads a model (opset <= 17) into a Graph of `onnx.<OpType>` ops
// (include/optgrammar/ops/onnx.hpp lists them and their operands). Initializers and `Constant`
// nodes become `$Const`s, graph inputs `Input` ops, graph outputs `Output` ops; output
// definitions come from the model's types and ONNX shape inference.
//
// Element types: float -> Float32, float16 -> Float16, int32 -> Int32, int64 -> Int32 (a value
// outside Int32's range is clamped to it, which keeps index and shape semantics), uint8, int8,
// uint16, int16 -> the quantized type of that width with zero offset 0 and step size 1 (so the
// stored integer is the value). Other element types are not imported.
#pragma once

#include <optgrammar/core/graph.hpp>
#include <optgrammar/engine/interpret.hpp>

#include <cstddef>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace optgrammar::onnx_import {

/// Why an import failed: `unsupported` marks what the importer does not claim (an op type or
/// an element type); everything else is `invalid` (a malformed model, a missing shape, ...).
class ImportError : public std::runtime_error {
 public:
  enum class Kind { unsupported_op, unsupported_type, invalid };
  ImportError(Kind k, const std::string& what) : std::runtime_error(what), kind(k) {}
  Kind kind;
};

struct ImportOptions {
  /// Dims for graph inputs whose model shape has symbolic or unknown dims. A name that is no
  /// input of the model makes the import fail (ImportError, invalid).
  std::map<std::string, std::vector<std::size_t>> input_shapes;
  /// Adds one `NAME=D0,D1,...` (the tools' --input-shape) to input_shapes. Returns false, adding
  /// nothing, when it is not of that form: an empty name, a missing or empty dim, a dim that is
  /// no integer >= 0.
  bool add_input_shape(std::string_view spec);
  /// Graph inputs imported as constants of these values (row-major; e.g. a sample rate the
  /// model branches on), not as Input ops. Their shapes must be fixed (by the model or
  /// input_shapes) and hold as many elements as values are given; a name that is no input of
  /// the model makes the import fail.
  std::map<std::string, std::vector<double>> input_values;
  /// Adds one `NAME=V0,V1,...` (the tools' --input-value) to input_values. Returns false, adding
  /// nothing, when it is not of that form: an empty name, a missing or empty value, a value that
  /// is no number.
  bool add_input_value(std::string_view spec);
  /// The folder that the locations of tensors stored outside the model (ONNX's external data)
  /// are relative to. import_file uses the model's folder when this is empty; import_bytes with
  /// it empty refuses such tensors.
  std::string external_data_dir;
};

struct Imported {
  Graph graph;
  std::vector<std::string> inputs;   ///< graph input names, in the order of the Input ops
  std::vector<std::string> outputs;  ///< graph output names, in the order of the Output ops
  std::size_t nodes = 0;             ///< nodes of the model (Constant nodes included)
  int opset = 0;
};

/// Reads and imports the model file. Throws ImportError.
Imported import_file(const std::string& path, const ImportOptions& options = {});

/// Imports the bytes already read from the model file at `path` (named so in messages): its
/// external data is read from path's folder unless `options` names another.
Imported import_file_bytes(std::string_view bytes, const std::string& path, const ImportOptions& options = {});

/// Imports a serialized model held in memory; `name` stands for it in messages. Throws ImportError.
Imported import_bytes(std::string_view bytes, const std::string& name, const ImportOptions& options = {});

/// A serialized TensorProto (ONNX test data) as a tensor of the imported element type.
/// `clamped` is set when an int64 value was outside Int32's range; `name` receives the tensor's
/// name (empty when it has none).
engine::Tensor read_tensor_file(const std::string& path, bool* clamped = nullptr, std::string* name = nullptr);

}  // namespace optgrammar::onnx_import
