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

This module is a thin layer over eltwise's C++ ONNX front end (``eltwise._onnx``, the same code as
the CLI's ``eltwise onnx``): ``EltwiseBackend.prepare(model, device="CPU")`` serializes the model
and has the front end parse and validate it (its rules and messages: docs/onnx.md); the returned
``EltwiseBackendRep`` runs it with ``run(inputs)``, each node compiled once per device and input
shape, and returns the graph outputs, in graph-output order, as a named tuple (also indexable by
output name).

Errors: a model the front end rejects raises ``UnsupportedModelError`` (a ``ValueError`` and an
``onnx.checker.ValidationError``: the front end applies ONNX's checker and its own rules in one
pass and reports both alike) with the front end's message; inputs ``run`` rejects raise
``InputError`` (a ``ValueError`` and a ``TypeError``, as a dtype mismatch was a ``TypeError``).

This module imports ``onnx``; ``import eltwise`` does not, so onnx stays an optional dependency.
See docs/python.md ("ONNX backend").
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from types import ModuleType
from typing import Any

import numpy as np
import onnx
import onnx.checker
import onnx.helper
from onnx import ModelProto, NodeProto
from onnx.backend.base import Backend, BackendRep, Device, DeviceType, namedtupledict

from . import info as _info



def _front_end() -> ModuleType:
    """eltwise._onnx, the extension that binds the C++ ONNX front end (untyped: no stub)."""
    try:
        return importlib.import_module("eltwise._onnx")
    except ImportError as e:  # a build with ELTWISE_BUILD_ONNX=OFF (or without libonnx-dev)
        raise ImportError(
            "eltwise.onnx_backend needs eltwise._onnx, the C++ ONNX front end, which this eltwise "
            "was built without (ELTWISE_BUILD_ONNX=OFF or no libonnx-dev); install the eltwise "
            f"wheel or rebuild with ELTWISE_BUILD_ONNX=ON ({e})") from e


_onnx = _front_end()

__all__ = ["EltwiseBackend", "EltwiseBackendRep", "UnsupportedModelError", "InputError",
           "MAX_OPSET", "prepare", "run_model", "run_node", "supports_device"]

#: The newest ai.onnx opset the C++ front end knows (a later opset could redefine Sign or Round).
MAX_OPSET: int = _onnx.MAX_OPSET


class UnsupportedModelError(ValueError, onnx.checker.ValidationError):
    """A model (or run_node request) that eltwise's ONNX front end does not run; says why."""


class InputError(ValueError, TypeError):
    """Inputs that do not fit the model (names, element types, shapes); says which and why."""


def _parse_device(device: str) -> Device:
    try:
        return Device(device.upper())
    except (AttributeError, ValueError) as e:
        raise ValueError(f"unknown device {device!r}; eltwise's ONNX backend takes 'CPU' "
                         f"(and 'CUDA' or 'CUDA:N' when eltwise has a CUDA device)") from e


def _cuda_device_count() -> int:
    return len(_info()["cuda_devices"])


class EltwiseBackendRep(BackendRep):
    """A validated model, ready to run repeatedly with ``run(inputs)``."""

    def __init__(self, model: ModelProto, device: str = "CPU", source: str = "model") -> None:
        """source: what messages start with (the file a model was loaded from, or "model")."""
        if not isinstance(model, ModelProto):
            raise TypeError(f"expected an onnx.ModelProto, got {type(model).__name__}")
        dev = _parse_device(device)
        if dev.type == DeviceType.CPU:
            self._device = "cpu"
        else:
            if dev.device_id >= _cuda_device_count():
                raise ValueError(f"device {device!r}: eltwise has {_cuda_device_count()} CUDA "
                                 f"device(s) (eltwise.info()['cuda_devices'])")
            self._device = f"cuda:{dev.device_id}"
        self.model = model
        try:
            self._model = _onnx.Model.parse(model.SerializeToString(), source)
        except ValueError as e:
            raise UnsupportedModelError(str(e)) from None
        self.opset: int = self._model.opset
        self._required: list[str] = self._model.input_names
        self._outputs: list[str] = self._model.output_names
        # All graph inputs, in graph order: the required ones and those with an initializer (a
        # default the caller may override). Names only; the front end has checked them.
        self._all_inputs = [vi.name for vi in model.graph.input]
        self._output_type = namedtupledict("Outputs", self._outputs)

    @property
    def input_names(self) -> list[str]:
        """All graph inputs, in graph order (those with an initializer are optional)."""
        return list(self._all_inputs)

    @property
    def required_input_names(self) -> list[str]:
        """The graph inputs without an initializer: what a positional ``run(inputs)`` binds."""
        return list(self._required)

    @property
    def output_names(self) -> list[str]:
        return list(self._outputs)

    @property
    def compile_count(self) -> int:
        """Operators compiled so far: one per node, device and input shape."""
        return int(self._model.compile_count)

    def _bind(self, inputs: Any) -> dict[str, Any]:
        # list, tuple and dict first: the abstract-class checks cost more than a small run.
        if isinstance(inputs, dict):
            return inputs
        if not isinstance(inputs, (list, tuple)):
            if isinstance(inputs, Mapping):
                return dict(inputs)
            if isinstance(inputs, np.ndarray) or not isinstance(inputs, Sequence):
                inputs = [inputs]
        if len(inputs) == len(self._required):
            names = self._required
        elif len(inputs) == len(self._all_inputs):
            names = self._all_inputs
        else:
            raise InputError(f"{len(inputs)} input(s) given; the graph needs "
                             f"{len(self._required)} ({self._required})")
        return dict(zip(names, inputs))

    def run(self, inputs: Any, **kwargs: Any) -> tuple[Any, ...]:
        """Runs the graph. inputs: a sequence (the required inputs in graph order, or all graph
        inputs), a dict name -> array, or a single array for a one-input graph; each a NumPy
        array (or anything ``np.asarray`` takes) of the declared element type and shape.

        Returns the graph outputs in graph-output order as a named tuple (``out[0]``,
        ``out["y"]``); outputs are new arrays."""
        try:
            outputs = self._model.run(self._bind(inputs), self._device)
        except ValueError as e:
            if isinstance(e, InputError):
                raise
            raise InputError(str(e)) from None
        return self._output_type(*outputs)


class EltwiseBackend(Backend):
    """ONNX backend for models made of eltwise's ops (see the module docstring)."""

    @classmethod
    def prepare(cls, model: Any, device: str = "CPU", **kwargs: Any) -> EltwiseBackendRep:
        """Validates model (a ModelProto, a path or serialized bytes) and returns a rep that runs
        it on device ("CPU", or "CUDA"/"CUDA:N" when eltwise reports CUDA devices). Other
        keyword arguments (which the backend API passes through) are ignored."""
        source = "model"
        if isinstance(model, (bytes, bytearray)):
            model = onnx.load_model_from_string(bytes(model))
        elif not isinstance(model, ModelProto):
            source = str(model)
            model = onnx.load(model)  # reads external data too, which the front end does not
        return EltwiseBackendRep(model, device, source)

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
        if len(arrays) != len(names):
            raise InputError(f"{len(arrays)} input(s) given; the node has {len(names)}")

        def declared(name: str, dtype: np.dtype[Any], shape: Sequence[int]) -> Any:
            elem = onnx.helper.np_dtype_to_tensor_dtype(dtype.newbyteorder("="))
            return onnx.helper.make_tensor_value_info(name, elem, shape)

        graph_inputs = [declared(n, a.dtype, a.shape) for n, a in zip(names, arrays)]
        if outputs_info is not None:
            graph_outputs = [declared(n, np.dtype(t), s)
                             for n, (t, s) in zip(node.output, outputs_info)]
        else:  # the type and shape of the first input (a tensor type is required; the front end
            # checks it against what the node computes)
            like = arrays[0] if arrays else np.zeros(0, np.float32)
            graph_outputs = [declared(n, like.dtype, like.shape) for n in node.output]
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
