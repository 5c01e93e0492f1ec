"""Per-example code, batched: an MLP predict with in_axes=(None, 0)

`predict(params, image)` is written for a single image. `jax.vmap(predict,
in_axes=(None, 0))` makes it work on a batch of images: `params` is shared by
every example (`None`: not batched) and the images are batched along axis 0.
The matrix-vector products in the plain jaxpr become matrix-matrix products in
the vmap jaxpr -- the batching rule of `dot_general` did that.
"""
import jax
import jax.numpy as jnp


def init_params(key, sizes=(784, 512, 10)):
    params = []
    for n_in, n_out in zip(sizes[:-1], sizes[1:]):
        key, wkey = jax.random.split(key)
        params.append((jax.random.normal(wkey, (n_in, n_out)) / jnp.sqrt(n_in),
                       jnp.zeros(n_out)))
    return params


def predict(params, image):
    activations = image
    for w, b in params[:-1]:
        activations = jnp.tanh(activations @ w + b)
    final_w, final_b = params[-1]
    logits = activations @ final_w + final_b
    return logits - jax.nn.logsumexp(logits)


JAXVIZ = {
    "topic": "vectorization",
    "function": "predict",
    "args": "[(f32[784,512], f32[512]), (f32[512,10], f32[10])], f32[784]",
    "variants": ["plain", "vmap", "pmap", "sharded"],
    "in_axes": "None, 0",
    "specs": "P(), P('i')",
    "order": 6,
}
