"""An ONNX backend (``onnx.backend.base.Backend``) that runs Sign and Round models with eltwise.

    >>> import numpy as np, onnx
    >>> from onnx import TensorProto, helper
    >>> from eltwise.onnx_backend import EltwiseBackend
    >>> graph = helper.make_graph(
    ...     [helper.make_node("Round", ["x"], ["y"])], "g",
    ...     [helper.make_tensor_value_info("x", TensorProto.FLOAT, [None])],
    ...     [helper.make_tensor_value_info("y", TensorProto.FLOAT, [None])])
    >>> model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 22)])
    >>> EltwiseBackend.run_model(model, [np.array([0.5, 1.5, -2.5], np.float32)])
    Outputs(y=array([ 0.,  2., -2.], dtype=float32))

``EltwiseBackend.prepare(model, device="CPU")`` validates the model and returns an
``EltwiseBackendRep``; its ``run(inputs)`` evaluates the graph's nodes in topological order with
``eltwise.sign(x, nan="propagate")`` (ONNX Sign: NaN gives NaN, as the ONNX reference does) and
``eltwise.round(x, mode="halves_to_nearest_even")`` (ONNX Round) and returns the graph outputs, in
graph-output order, as a named tuple (also indexable by output name).

Accepted models (the rules of the C++ front end, docs/onnx.md): one ``ai.onnx`` opset import in
1-28; only ``Sign`` (Sign-9, Sign-13) and ``Round`` (Round-11, Round-22) nodes with one input, one
output and no attributes, chained through intermediate values in any order; tensor inputs,
initializers and outputs of the types each operator version allows and eltwise supports; the ONNX
checker must accept the (sorted) model. Anything else raises ``UnsupportedModelError`` (a
``ValueError``) naming the node, operator, value or type.

This module imports ``onnx``; ``import eltwise`` does not, so onnx stays an optional dependency.
See docs/python.md ("ONNX backend").
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import onnx
import onnx.checker
import onnx.helper
import onnx.numpy_helper
from onnx import ModelProto, NodeProto, TensorProto
from onnx.backend.base import Backend, BackendRep, Device, DeviceType, namedtupledict

from . import info as _info
from . import round as _round
from . import sign as _sign

__all__ = ["EltwiseBackend", "EltwiseBackendRep", "UnsupportedModelError", "MAX_OPSET",
           "prepare", "run_model", "run_node", "supports_device"]

#: The newest ai.onnx opset this backend knows (a later opset could redefine Sign or Round).
MAX_OPSET = 28

_FLOATS = ("FLOAT16", "FLOAT", "DOUBLE")
_INTS = ("UINT8", "UINT16", "UINT32", "UINT64", "INT8", "INT16", "INT32", "INT64")
# operator -> {since_version: element types it allows (all of which eltwise supports)}
_VERSIONS: dict[str, dict[int, tuple[str, ...]]] = {
    "Sign": {9: _INTS + _FLOATS, 13: _INTS + _FLOATS + ("BFLOAT16",)},
    "Round": {11: _FLOATS, 22: _FLOATS + ("BFLOAT16",)},
}
_SUPPORTED_TYPES = frozenset(_INTS + _FLOATS + ("BFLOAT16",))
_ONNX_DOMAINS = ("", "ai.onnx")


class UnsupportedModelError(ValueError):
    """A model (or run_node request) that eltwise's ONNX backend does not run; says why."""


def _type_name(elem_type: int) -> str:
    try:
        return str(TensorProto.DataType.Name(elem_type))
    except ValueError:
        return f"data type {elem_type}"


def _np_dtype(elem_type: int) -> np.dtype[Any]:
    return np.dtype(onnx.helper.tensor_dtype_to_np_dtype(elem_type))


def _describe_type(type_proto: onnx.TypeProto) -> str:
    kind = type_proto.WhichOneof("value")
    return "untyped" if kind is None else kind.replace("_type", "")


def _select_version(op: str, opset: int) -> int | None:
    """The newest version of op that is not newer than opset (None if op did not exist yet)."""
    versions = [v for v in _VERSIONS[op] if v <= opset]
    return max(versions) if versions else None


def _versions_text() -> str:
    return " and ".join(f"{op} (opsets {', '.join(map(str, v))})" for op, v in _VERSIONS.items())


def _parse_device(device: str) -> Device:
    try:
        return Device(device.upper())
    except (AttributeError, ValueError) as e:
        raise ValueError(f"unknown device {device!r}; eltwise's ONNX backend takes 'CPU' "
                         f"(and 'CUDA' or 'CUDA:N' when eltwise has a CUDA device)") from e


def _cuda_device_count() -> int:
    return len(_info()["cuda_devices"])


class _Step:
    __slots__ = ("index", "name", "op", "version", "input", "output")

    def __init__(self, index: int, name: str, op: str, version: int, inp: str, out: str) -> None:
        self.index, self.name, self.op, self.version = index, name, op, version
        self.input, self.output = inp, out


def _where(index: int, node: NodeProto) -> str:
    return f"node {index} '{node.name}' ({node.op_type})" if node.name else (
        f"node {index} ({node.op_type})")


def _tensor_info(what: str, name: str, type_proto: onnx.TypeProto
                 ) -> tuple[int, tuple[int | str | None, ...] | None]:
    """(element type, dims or None for an unknown rank) of a declared tensor value."""
    if type_proto.WhichOneof("value") != "tensor_type":
        raise UnsupportedModelError(
            f"{what} '{name}' is a {_describe_type(type_proto)}; eltwise runs tensors only")
    tt = type_proto.tensor_type
    dims: tuple[int | str | None, ...] | None = None
    if tt.HasField("shape"):
        dims = tuple(d.dim_value if d.HasField("dim_value") else
                     (d.dim_param if d.HasField("dim_param") else None) for d in tt.shape.dim)
    return tt.elem_type, dims


def _check_agrees(what: str, name: str, declared: tuple[int, Any], computed: tuple[int, Any]
                  ) -> None:
    d_type, d_dims = declared
    c_type, c_dims = computed
    if d_type != TensorProto.UNDEFINED and d_type != c_type:
        raise UnsupportedModelError(
            f"{what} '{name}' is declared {_type_name(d_type)} but is {_type_name(c_type)}")
    if d_dims is None or c_dims is None:
        return
    if len(d_dims) != len(c_dims):
        raise UnsupportedModelError(
            f"{what} '{name}' is declared with rank {len(d_dims)} but has rank {len(c_dims)}")
    for axis, (d, c) in enumerate(zip(d_dims, c_dims)):
        if isinstance(d, int) and isinstance(c, int) and d != c:
            raise UnsupportedModelError(
                f"{what} '{name}' is declared with size {d} in dimension {axis} but has size {c}")


class EltwiseBackendRep(BackendRep):
    """A validated model, ready to run repeatedly with ``run(inputs)``."""

    def __init__(self, model: ModelProto, device: str = "CPU") -> None:
        dev = _parse_device(device)
        if dev.type == DeviceType.CPU:
            self._device = "cpu"
        else:
            if dev.device_id >= _cuda_device_count():
                raise ValueError(f"device {device!r}: eltwise has {_cuda_device_count()} CUDA "
                                 f"device(s) (eltwise.info()['cuda_devices'])")
            self._device = f"cuda:{dev.device_id}"
        self.model = model
        self._validate(model)

    # -- preparation ------------------------------------------------------------------------------

    def _validate(self, model: ModelProto) -> None:
        if not isinstance(model, ModelProto):
            raise TypeError(f"expected an onnx.ModelProto, got {type(model).__name__}")
        imports = [o for o in model.opset_import if o.domain in _ONNX_DOMAINS]
        if len(imports) != 1:
            raise UnsupportedModelError(
                f"the model imports {len(imports)} ai.onnx opsets; eltwise needs exactly one")
        opset = imports[0].version
        if not 1 <= opset <= MAX_OPSET:
            raise UnsupportedModelError(
                f"ai.onnx opset {opset} is not supported; eltwise knows opsets 1-{MAX_OPSET}")
        self.opset = opset
        graph = model.graph
        if len(graph.sparse_initializer):
            raise UnsupportedModelError("sparse initializers are not supported")

        # value name -> (element type, dims)
        values: dict[str, tuple[int, tuple[int | str | None, ...] | None]] = {}
        self._constants: dict[str, np.ndarray[Any, Any]] = {}
        for init in graph.initializer:
            if init.name in self._constants:
                raise UnsupportedModelError(f"initializer '{init.name}' is defined twice")
            if init.data_type not in [TensorProto.DataType.Value(t) for t in _SUPPORTED_TYPES]:
                raise UnsupportedModelError(
                    f"initializer '{init.name}' is {_type_name(init.data_type)}; eltwise supports "
                    f"{', '.join(sorted(_SUPPORTED_TYPES))}")
            if init.data_location == TensorProto.EXTERNAL:
                raise UnsupportedModelError(
                    f"initializer '{init.name}' has external data; load the model with "
                    f"onnx.load(path) (which reads it) before preparing it")
            array = onnx.numpy_helper.to_array(init)
            self._constants[init.name] = array
            values[init.name] = (init.data_type, tuple(array.shape))

        self._inputs: list[tuple[str, np.dtype[Any], tuple[int | str | None, ...] | None]] = []
        self._required: list[str] = []
        for vi in graph.input:
            elem, dims = _tensor_info("graph input", vi.name, vi.type)
            if _type_name(elem) not in _SUPPORTED_TYPES:
                raise UnsupportedModelError(
                    f"graph input '{vi.name}' is {_type_name(elem)}; eltwise supports "
                    f"{', '.join(sorted(_SUPPORTED_TYPES))}")
            if any(name == vi.name for name, _, _ in self._inputs):
                raise UnsupportedModelError(f"graph input '{vi.name}' is listed twice")
            if vi.name in self._constants:
                _check_agrees("graph input", vi.name, (elem, dims), values[vi.name])
            else:
                self._required.append(vi.name)
            values[vi.name] = (elem, dims)
            self._inputs.append((vi.name, _np_dtype(elem), dims))

        # Nodes: operator, version, arity; then Kahn's algorithm (lowest index first, so a sorted
        # graph keeps its order), as the C++ front end does.
        producer: dict[str, int] = {}
        for i, node in enumerate(graph.node):
            where = _where(i, node)
            if node.domain not in _ONNX_DOMAINS or node.op_type not in _VERSIONS:
                domain = f" (domain '{node.domain}')" if node.domain not in _ONNX_DOMAINS else ""
                raise UnsupportedModelError(
                    f"{where}: operator '{node.op_type}'{domain} is not supported; eltwise runs "
                    f"{_versions_text()} only")
            if _select_version(node.op_type, opset) is None:
                raise UnsupportedModelError(
                    f"{where}: {node.op_type} does not exist in opset {opset}; eltwise runs "
                    f"{_versions_text()}")
            if len(node.input) != 1 or len(node.output) != 1 or not node.input[0] or (
                    not node.output[0]):
                raise UnsupportedModelError(
                    f"{where}: has {len(node.input)} input(s) and {len(node.output)} output(s); "
                    f"{node.op_type} takes exactly one named input and one named output")
            if len(node.attribute):
                raise UnsupportedModelError(
                    f"{where}: attribute '{node.attribute[0].name}' is not allowed; "
                    f"{node.op_type} has no attributes")
            out = node.output[0]
            if out in values or out in producer:
                raise UnsupportedModelError(f"{where}: value '{out}' is defined twice")
            producer[out] = i
        waiting = [0] * len(graph.node)
        users: dict[int, list[int]] = {}
        for i, node in enumerate(graph.node):
            src = node.input[0]
            if src in producer:
                waiting[i] = 1
                users.setdefault(producer[src], []).append(i)
            elif src not in values:
                raise UnsupportedModelError(
                    f"{_where(i, node)}: input '{src}' is not a graph input, an initializer or "
                    f"a node output")
        ready = [i for i, w in enumerate(waiting) if w == 0]
        heapq.heapify(ready)
        order: list[int] = []
        while ready:
            i = heapq.heappop(ready)
            order.append(i)
            for j in users.get(i, []):
                waiting[j] -= 1
                if waiting[j] == 0:
                    heapq.heappush(ready, j)
        if len(order) != len(graph.node):
            stuck = next(i for i, w in enumerate(waiting) if w)
            raise UnsupportedModelError(
                f"{_where(stuck, graph.node[stuck])}: the graph has a cycle")

        # Types, in execution order.
        declared = {vi.name: vi for vi in graph.value_info}
        self._steps: list[_Step] = []
        for i in order:
            node = graph.node[i]
            op, src, out = node.op_type, node.input[0], node.output[0]
            version = _select_version(op, opset)
            assert version is not None
            elem, dims = values[src]
            allowed = _VERSIONS[op][version]
            if _type_name(elem) not in allowed:
                newer = [v for v in _VERSIONS[op] if v > version and
                         _type_name(elem) in _VERSIONS[op][v]]
                hint = f" ({op}-{newer[0]}, from opset {newer[0]}, allows it)" if newer else ""
                raise UnsupportedModelError(
                    f"{_where(i, node)}: input '{src}' is {_type_name(elem)}, which {op}-{version} "
                    f"(selected by opset {opset}) does not allow; it accepts "
                    f"{', '.join(allowed)}{hint}")
            values[out] = (elem, dims)
            if out in declared:
                _check_agrees("value", out, _tensor_info("value", out, declared[out].type),
                              values[out])
            self._steps.append(_Step(i, node.name, op, version, src, out))

        self._outputs: list[str] = []
        for vi in graph.output:
            if vi.name not in values:
                raise UnsupportedModelError(f"graph output '{vi.name}' is never computed")
            _check_agrees("graph output", vi.name, _tensor_info("graph output", vi.name, vi.type),
                          values[vi.name])
            self._outputs.append(vi.name)
        if not self._outputs:
            raise UnsupportedModelError("the graph has no outputs")

        # The ONNX checker, on the sorted graph (it requires topological order).
        if order != sorted(order):
            model = onnx.ModelProto()
            model.CopyFrom(self.model)
            nodes = [onnx.NodeProto() for _ in order]
            for dst, i in zip(nodes, order):
                dst.CopyFrom(self.model.graph.node[i])
            del model.graph.node[:]
            model.graph.node.extend(nodes)
        onnx.checker.check_model(model)
        self._output_type = namedtupledict("Outputs", self._outputs)

    # -- running ----------------------------------------------------------------------------------

    @property
    def input_names(self) -> list[str]:
        """All graph inputs, in graph order (those with an initializer are optional)."""
        return [name for name, _, _ in self._inputs]

    @property
    def required_input_names(self) -> list[str]:
        """The graph inputs without an initializer: what a positional ``run(inputs)`` binds."""
        return list(self._required)

    @property
    def output_names(self) -> list[str]:
        return list(self._outputs)

    def _bind(self, inputs: Any) -> dict[str, np.ndarray[Any, Any]]:
        if isinstance(inputs, Mapping):
            given = dict(inputs)
            unknown = [k for k in given if k not in self.input_names]
            if unknown:
                raise ValueError(f"unknown input name(s) {unknown}; the graph's inputs are "
                                 f"{self.input_names}")
        else:
            if isinstance(inputs, np.ndarray) or not isinstance(inputs, Sequence):
                inputs = [inputs]
            if len(inputs) == len(self._required):
                names = self._required
            elif len(inputs) == len(self._inputs):
                names = self.input_names
            else:
                raise ValueError(f"{len(inputs)} input(s) given; the graph needs "
                                 f"{len(self._required)} ({self._required})")
            given = dict(zip(names, inputs))
        missing = [n for n in self._required if n not in given]
        if missing:
            raise ValueError(f"missing input(s) {missing}")
        bound: dict[str, np.ndarray[Any, Any]] = {}
        symbols: dict[str, tuple[int, str]] = {}
        for name, dtype, dims in self._inputs:
            if name not in given:
                continue
            x = np.asarray(given[name])
            if x.dtype.type is not dtype.type:
                raise TypeError(f"input '{name}' is {x.dtype}; the graph declares "
                                f"{dtype.name}")
            if dims is not None:
                if x.ndim != len(dims):
                    raise ValueError(f"input '{name}' has shape {x.shape}; the graph declares "
                                     f"rank {len(dims)}")
                for axis, (d, n) in enumerate(zip(dims, x.shape)):
                    if isinstance(d, int) and d != n:
                        raise ValueError(f"input '{name}' has shape {x.shape}; the graph declares "
                                         f"size {d} in dimension {axis}")
                    if isinstance(d, str) and d:
                        seen = symbols.setdefault(d, (n, name))
                        if seen[0] != n:
                            raise ValueError(f"input '{name}' has size {n} for '{d}' in dimension "
                                             f"{axis}, input '{seen[1]}' has {seen[0]}")
            bound[name] = x
        return bound

    def run(self, inputs: Any, **kwargs: Any) -> tuple[Any, ...]:
        """Runs the graph. inputs: a sequence (the required inputs in graph order, or all graph
        inputs), a dict name -> array, or a single array for a one-input graph; each a NumPy
        array (or anything ``np.asarray`` takes) of the declared element type and shape.

        Returns the graph outputs in graph-output order as a named tuple (``out[0]``,
        ``out["y"]``); outputs are new arrays."""
        values: dict[str, Any] = dict(self._constants)
        values.update(self._bind(inputs))
        computed = set()
        for step in self._steps:
            x = values[step.input]
            if step.op == "Sign":
                values[step.output] = _sign(x, nan="propagate", device=self._device)
            else:
                values[step.output] = _round(x, mode="halves_to_nearest_even", device=self._device)
            computed.add(step.output)
        outputs = [values[n] if n in computed else np.array(values[n], copy=True)
                   for n in self._outputs]
        return self._output_type(*outputs)


class EltwiseBackend(Backend):
    """ONNX backend for models made of Sign and Round nodes (see the module docstring)."""

    @classmethod
    def prepare(cls, model: Any, device: str = "CPU", **kwargs: Any) -> EltwiseBackendRep:
        """Validates model (a ModelProto, a path or serialized bytes) and returns a rep that runs
        it on device ("CPU", or "CUDA"/"CUDA:N" when eltwise reports CUDA devices). Other
        keyword arguments (which the backend API passes through) are ignored."""
        if isinstance(model, (bytes, bytearray)):
            model = onnx.load_model_from_string(bytes(model))
        elif not isinstance(model, ModelProto):
            model = onnx.load(model)
        return EltwiseBackendRep(model, device)

    @classmethod
    def run_model(cls, model: Any, inputs: Any, device: str = "CPU",
                  **kwargs: Any) -> tuple[Any, ...]:
        return cls.prepare(model, device, **kwargs).run(inputs)

    @classmethod
    def run_node(cls, node: NodeProto, inputs: Any, device: str = "CPU",
                 outputs_info: Sequence[tuple[Any, tuple[int, ...]]] | None = None,
                 **kwargs: Any) -> tuple[Any, ...]:
        """Runs one Sign or Round node on inputs (a sequence or dict of arrays, matched to
        node.input) in a one-node model of opset ``opset_version`` (default MAX_OPSET), checked
        and run as prepare() and run() do."""
        opset = kwargs.pop("opset_version", MAX_OPSET)
        names = list(node.input)
        if isinstance(inputs, Mapping):
            arrays = [np.asarray(inputs[n]) for n in names]
        else:
            if isinstance(inputs, np.ndarray) or not isinstance(inputs, Sequence):
                inputs = [inputs]
            arrays = [np.asarray(x) for x in inputs]
        arrays = [a if a.dtype.isnative else a.astype(a.dtype.newbyteorder("=")) for a in arrays]
        if len(arrays) != len(names):
            raise ValueError(f"{len(arrays)} input(s) given; the node has {len(names)}")
        graph_inputs = [onnx.helper.make_tensor_value_info(
            n, onnx.helper.np_dtype_to_tensor_dtype(a.dtype), a.shape)
            for n, a in zip(names, arrays)]
        if outputs_info is not None:
            graph_outputs = [onnx.helper.make_tensor_value_info(
                n, onnx.helper.np_dtype_to_tensor_dtype(np.dtype(t)), s)
                for n, (t, s) in zip(node.output, outputs_info)]
        else:  # Sign and Round keep the element type and shape
            like = arrays[0] if arrays else np.zeros(0, np.float32)
            elem = onnx.helper.np_dtype_to_tensor_dtype(like.dtype)
            graph_outputs = [onnx.helper.make_tensor_value_info(n, elem, like.shape)
                             for n in node.output]
        graph = onnx.helper.make_graph([node], "run_node", graph_inputs, graph_outputs)
        model = onnx.helper.make_model(graph, opset_imports=[onnx.helper.make_opsetid("", opset)])
        return cls.prepare(model, device).run(arrays)

    @classmethod
    def supports_device(cls, device: str) -> bool:
        """True for "CPU"; for "CUDA" or "CUDA:N" when eltwise reports that CUDA device."""
        try:
            dev = _parse_device(device)
        except ValueError:
            return False
        if dev.type == DeviceType.CPU:
            return True
        return dev.device_id < _cuda_device_count()


prepare = EltwiseBackend.prepare
run_model = EltwiseBackend.run_model
run_node = EltwiseBackend.run_node
supports_device = EltwiseBackend.supports_device
