// ONNX import for the tools: reads a model (opset <= 17) into a Graph of `onnx.<OpType>` ops
// (include/optgrammar/ops/onnx.hpp lists them and their operands). Initializers and `Constant`
// nodes become `$Const`s, graph inputs `Input` ops, graph outputs `Output` ops. Output
// definitions come from ONNX's shape inference, run node by node with the values the import
// computes (shape arithmetic becomes constants; If and Loop whose condition and trip count are
// then known are inlined), else from the model's declared types (docs/onnx.md, "Shapes").
//
// Element types: each ONNX numeric type and bool to the DType of the same width and meaning
// (float -> Float32, double -> Float64, bfloat16 -> BFloat16, int64 -> Int64, uint8 -> UInt8,
// bool -> Bool, ...); string and complex are not imported.
#pragma once

#include <optgrammar/core/graph.hpp>
#include <optgrammar/engine/interpret.hpp>

#include <cstddef>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace optgrammar::onnx_import {

/// Why an import failed: `unsupported` marks what the importer does not claim (an op type or
/// an element type); `not_a_model` bytes that are no ONNX model at all (no protobuf message, or
/// one without IR version or graph); everything else is `invalid` (a malformed model, a missing
/// shape, ...).
class ImportError : public std::runtime_error {
 public:
  /// bad_option: an ImportOptions entry does not fit the model (a name that is no input, a shape of
  /// another rank, values that do not fill the input).
  enum class Kind { unsupported_op, unsupported_type, not_a_model, invalid, bad_option };
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
  /// Where the imported graph's op and input records come from (Graph(RecordResource*));
  /// nullptr: operator new. It must outlive the graph.
  RecordResource* records = nullptr;
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

/// ONNX's own type and shape inference (its schema's, at opset 17) of the imported op `r` of g (an
/// `onnx.<OpType>` op: its attributes read back from its attribute operands, its inputs' element
/// types and shapes, a quantized dtype as the integer type it is stored as, and the values of its
/// constant inputs): the output definition the inference finds, or nullopt (not an imported op, no
/// complete shape found, or the inference rejects the operands; `error` then says why, when given).
/// An output of the integer type the first data input's quantized type is stored as is given that
/// quantized type and its encoding, where the op's definition lets its result be of that type.
/// What og-opt --verify declares for the imported ops it synthesizes.
std::optional<OutputDef> infer_output(const Graph& g, OpRef r, std::string* error = nullptr);

/// For an imported op (`onnx.<OpType>`, operands as imported: attributes first): per operand, the
/// earlier operand whose element type ONNX's schema (opset 17) ties it to (an input of the same
/// type variable: DequantizeLinear's zero point and its data), or -1. Empty for any other op.
std::vector<int> tied_types(std::string_view op_name);

/// A serialized TensorProto (ONNX test data) as a tensor of the imported element type; `name`
/// receives the tensor's name (empty when it has none).
engine::Tensor read_tensor_file(const std::string& path, std::string* name = nullptr);

}  // namespace optgrammar::onnx_import
