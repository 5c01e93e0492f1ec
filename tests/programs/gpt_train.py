"""A GPT-style train step of our own: LAYERS transformer blocks, value_and_grad, an SGD update.

The parameters are FSDP x tensor parallel over a 4x2 mesh ('data', 'model'): every
weight matrix is split over 'data' on its first axis and 'model' on its second
(``P('data', 'model')``), the output projections the other way round
(``P('model', 'data')``); with ``SCANNED`` the layers are stacked and run by
``lax.scan``, each stacked weight then ``P(None, 'data', 'model')`` (and its
transpose). The dimensions are small so it traces fast; the structure is that of a
real train step. ``tests/programs/__init__.py`` writes variants of this file
(LAYERS, SCANNED, the mesh) for the tests; it runs as written with 8 CPU devices.
"""
import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import AxisType, NamedSharding
from jax.sharding import PartitionSpec as P

LAYERS = 12
SCANNED = False
MESH_SHAPE = (4, 2)
D, F, V, T, B, H = 16, 32, 32, 8, 8, 2


def norm(x):
    mean = x.mean(-1, keepdims=True)
    return (x - mean) * jax.lax.rsqrt(((x - mean) ** 2).mean(-1, keepdims=True) + 1e-5)


def attention(p, x):
    with jax.named_scope("attention"):
        q, k, v = jnp.split(x @ p["wqkv"], 3, axis=-1)
        q, k, v = (a.reshape(B, T, H, D // H) for a in (q, k, v))
        scores = jnp.einsum("bthd,bshd->bhts", q, k) / np.sqrt(D // H)
        mask = jnp.tril(jnp.ones((T, T), bool))
        weights = jax.nn.softmax(jnp.where(mask, scores, -1e9), axis=-1)
        out = jnp.einsum("bhts,bshd->bthd", weights, v).reshape(B, T, D)
        return out @ p["wo"]


def mlp(p, x):
    with jax.named_scope("mlp"):
        return jax.nn.gelu(x @ p["w1"]) @ p["w2"]


def block(p, x):
    x = x + attention(p, norm(x))
    return x + mlp(p, norm(x))


def loss_fn(params, tokens, targets):
    x = params["embed"][tokens]
    if SCANNED:
        x, _ = jax.lax.scan(lambda h, p: (block(p, h), None), x, params["layers"])
    else:
        for p in params["layers"]:
            x = block(p, x)
    logits = norm(x) @ params["unembed"]
    logp = jax.nn.log_softmax(logits)
    return -jnp.take_along_axis(logp, targets[..., None], axis=-1).mean()


def train_step(params, tokens, targets):
    loss, grads = jax.value_and_grad(loss_fn)(params, tokens, targets)
    params = jax.tree.map(lambda w, g: w - 0.1 * g, params, grads)
    return params, loss


SHAPES = {"wqkv": (D, 3 * D), "wo": (D, D), "w1": (D, F), "w2": (F, D)}
MODEL = "model" if len(MESH_SHAPE) > 1 else None  # a 1-D mesh: FSDP over 'data' alone
LAYER_SPECS = {"wqkv": P("data", MODEL), "wo": P(MODEL, "data"),
               "w1": P("data", MODEL), "w2": P(MODEL, "data")}

rng = np.random.default_rng(0)


def _weights(shape):
    return (rng.standard_normal(shape) / np.sqrt(shape[-2])).astype(np.float32)


if SCANNED:
    layers = {k: _weights((LAYERS, *s)) for k, s in SHAPES.items()}
    layer_specs = {k: P(None, *s) for k, s in LAYER_SPECS.items()}
else:
    layers = [{k: _weights(s) for k, s in SHAPES.items()} for _ in range(LAYERS)]
    layer_specs = [dict(LAYER_SPECS) for _ in range(LAYERS)]
params = {"embed": _weights((V, D)), "layers": layers, "unembed": _weights((D, V))}
tokens = rng.integers(0, V, (B, T)).astype(np.int32)
targets = rng.integers(0, V, (B, T)).astype(np.int32)

MESH = jax.make_mesh(MESH_SHAPE, ("data", "model")[:len(MESH_SHAPE)],
                     axis_types=(AxisType.Auto,) * len(MESH_SHAPE))
SPECS = ({"embed": P(None, MODEL), "layers": layer_specs, "unembed": P(MODEL, None)},
         P("data"), P("data"))
SHARDINGS = jax.tree.map(lambda s: NamedSharding(MESH, s), SPECS,
                         is_leaf=lambda s: isinstance(s, P))

if __name__ == "__main__":
    jax.config.update("jax_num_cpu_devices", 8)
    out = jax.jit(train_step, in_shardings=SHARDINGS)(params, tokens, targets)
    print("loss", out[1])
