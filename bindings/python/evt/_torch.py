"""A kernel as a PyTorch operator (torch.library.custom_op), so that
torch.compile traces through it and CUDA graphs capture it.

Kernel.torch_op(name) registers one: its schema comes from the kernel's
operands, inputs and params (and a conv's geometry), its outputs are new
tensors, and its fake implementation is the binding's own checks run on the
tensors' shapes (_Plan with meta=True), which also allocate the outputs it
returns.  Nothing here is imported until an operator is asked for.
"""

import threading

from ._module import _Plan, _torch
from .errors import UnsupportedError

_CONV_OPTIONS = (("padding", 0), ("stride", 1), ("dilation", 1))

# Operators registered in this process, by qualified name: (kernel, op).
# torch.library keeps them for the process's life, so asking again for the
# same kernel returns the same one (a module makes one Kernel per name).
_ops = {}
_ops_lock = threading.Lock()


def torch_op(kernel, name):
    """The custom op `name` ("namespace::op") running `kernel`: see Kernel.torch_op."""
    torch = _torch("Kernel.torch_op")
    with _ops_lock:
        known = _ops.get(name)
        if known is not None:
            owner, op = known
            if owner is kernel:
                return op
            raise ValueError(f"operator '{name}' is already registered, for kernel "
                             f"'{owner.name}' of module '{owner.module.name}'")
        spec = _Spec(kernel)
        # The call's checks read strides (a declared layout, channels-last):
        # inductor must hand the op its tensors laid out as eager would.
        # (Older PyTorch, without the tag, keeps custom ops' inputs in their
        # stride order, which is what the checks need.)
        layout = getattr(torch.Tag, "needs_exact_strides", None)
        tags = {"tags": (layout,)} if layout is not None else {}
        op = torch.library.custom_op(name, spec.run, mutates_args=(), device_types="cuda",
                                     schema=spec.schema, **tags)
        op.register_fake(spec.fake)
        _ops[name] = (kernel, op)
        return op


class _Spec:
    """How an operator's arguments map onto a kernel call.

    Tensors go positionally: the two operands, then the epilogue's inputs in
    declaration order (custom ops take no keyword-only tensors); params and a
    conv's padding, stride and dilation are keyword-only.  An operand named
    like an epilogue argument (examples.evt's mlp_up has an input `b`) is
    called `<name>_operand` in the schema."""

    def __init__(self, kernel):
        self.kernel = kernel
        epilogue = {a.name for a in kernel.inputs + kernel.outputs + kernel.params}
        options = _CONV_OPTIONS if kernel.mainloop == "conv2d_fprop" else ()
        for opt, _ in options:
            if opt in epilogue:
                raise UnsupportedError(f"kernel '{kernel.name}': epilogue '{kernel.epilogue}' has "
                                       f"an argument named '{opt}', like the option; rename it to "
                                       f"make an operator of the kernel")
        operands = [o.name + "_operand" if o.name in epilogue else o.name
                    for o in kernel.operands]
        self.inputs = [a.name for a in kernel.inputs]
        self.options = [opt for opt, _ in options]
        args = [f"Tensor {n}" for n in operands + self.inputs]
        keywords = [f"float {a.name}" + ("" if a.default is None else f"={a.default!r}")
                    for a in kernel.params]
        keywords += [f"int[2] {opt}={default}" for opt, default in options]
        if keywords:
            args += ["*"] + keywords
        self.single = len(kernel.outputs) == 1
        returns = "Tensor" if self.single else f"({', '.join(['Tensor'] * len(kernel.outputs))})"
        self.schema = f"({', '.join(args)}) -> {returns}"

    def _split(self, tensors, kw):
        """(operands, epilogue arguments, options) of one operator call."""
        args = dict(zip(self.inputs, tensors[2:]))
        opts = {}
        for k, v in kw.items():
            if k in self.options:
                opts[k] = tuple(v)  # int[2] arrives as a list
            else:
                args[k] = v
        return tensors[:2], args, opts

    def run(self, *tensors, **kw):
        (a, b), args, opts = self._split(tensors, kw)
        out = self.kernel(a, b, **args, **opts)
        return out if self.single else tuple(out)

    def fake(self, *tensors, **kw):
        operands, args, opts = self._split(tensors, kw)
        outputs = [t for _, t in _Plan(self.kernel, operands, args, opts, meta=True).outputs]
        return outputs[0] if self.single else tuple(outputs)
