"""Programs whose projected cost ``bench_cost_vs_real.py`` checks against a real run.

Matmuls at each precision and dot algorithm, memory-bound element-wise ops, and a
12-layer GPT-style train step in bf16, unrolled and run by ``lax.scan``. Full size
unless ``JAXVIZ_COST_SMALL=1`` (a quick run on the CPU to try the script).
"""
import os

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

SMALL = os.environ.get("JAXVIZ_COST_SMALL") == "1"
N = 512 if SMALL else 8192
E = (1 << 16) if SMALL else (1 << 28)  # elements of the 1 GiB f32 arrays
rng = np.random.default_rng(0)


def mat(dtype="float32", n=N):
    return jnp.asarray(rng.standard_normal((n, n), np.float32)).astype(dtype)


def vec(n=E):
    return jax.random.normal(jax.random.key(n), (n,), jnp.float32)


def rows(r=(1 << 14) if not SMALL else 64, c=(1 << 14) if not SMALL else 64):
    return jax.random.normal(jax.random.key(r), (r, c), jnp.float32)


def mm(a, b):
    return a @ b


def mm_at(a, b, precision):
    """``a @ b`` at ``precision``: a ``lax.Precision`` name (``HIGHEST``) or a dot
    algorithm (``BF16_BF16_F32_X6``), given as a static argument."""
    return jnp.dot(a, b, precision=getattr(lax.Precision, precision, precision))


def axpy(x, y):
    return 2.0 * x + y


def sumsq(x):
    return jnp.sum(x * x)


def softmax(x):
    return jax.nn.softmax(x, axis=-1)


# A 12-layer GPT-style train step in bf16, unrolled and scanned.
L = 2 if SMALL else 12
D, F, V, T, B, H = (64, 256, 512, 64, 2, 4) if SMALL else (1024, 4096, 32768, 1024, 4, 16)


_keys = iter(range(1 << 20))


def _w(*shape):
    w = jax.random.normal(jax.random.key(next(_keys)), shape, jnp.float32) / np.sqrt(shape[-2])
    return w.astype(jnp.bfloat16)


def params(scanned=False):
    def layer(*lead):
        return {"wqkv": _w(*lead, D, 3 * D), "wo": _w(*lead, D, D),
                "w1": _w(*lead, D, F), "w2": _w(*lead, F, D)}
    layers = layer(L) if scanned else [layer() for _ in range(L)]
    return {"embed": _w(V, D), "layers": layers, "unembed": _w(D, V)}


def tokens():
    return jnp.asarray(rng.integers(0, V, (B, T)).astype(np.int32))


def norm(x):
    x32 = x.astype(jnp.float32)
    mean = x32.mean(-1, keepdims=True)
    y = (x32 - mean) * lax.rsqrt(((x32 - mean) ** 2).mean(-1, keepdims=True) + 1e-5)
    return y.astype(x.dtype)


def block(p, x):
    q, k, v = jnp.split(norm(x) @ p["wqkv"], 3, axis=-1)
    q, k, v = (a.reshape(B, T, H, D // H) for a in (q, k, v))
    s = jnp.einsum("bthd,bshd->bhts", q, k).astype(jnp.float32) / np.sqrt(D // H)
    s = jnp.where(jnp.tril(jnp.ones((T, T), bool)), s, -1e9)
    a = jnp.einsum("bhts,bshd->bthd", jax.nn.softmax(s, -1).astype(x.dtype), v)
    x = x + a.reshape(B, T, D) @ p["wo"]
    return x + jax.nn.gelu(norm(x) @ p["w1"]) @ p["w2"]


def _loss(params, toks, scanned):
    x = params["embed"][toks]
    if scanned:
        x, _ = lax.scan(lambda h, p: (block(p, h), None), x, params["layers"])
    else:
        for p in params["layers"]:
            x = block(p, x)
    logits = (norm(x) @ params["unembed"]).astype(jnp.float32)
    logp = jax.nn.log_softmax(logits)
    return -jnp.take_along_axis(logp, toks[..., None], axis=-1).mean()


def _step(params, toks, scanned):
    loss, g = jax.value_and_grad(_loss)(params, toks, scanned)
    return jax.tree.map(lambda w, g: w - 0.01 * g.astype(w.dtype), params, g), loss


def train_step(params, toks):
    return _step(params, toks, False)


def train_step_scanned(params, toks):
    return _step(params, toks, True)
