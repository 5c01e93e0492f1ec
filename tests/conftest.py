"""Suite-wide settings: 8 simulated CPU devices for in-process JAX, no display for Qt.

Both are environment variables, so nothing here imports JAX or Qt: each test
module imports what it needs.
"""

import os

# jax reads JAX_NUM_CPU_DEVICES when its backend starts (engine processes
# override it with their own --devices).
os.environ.setdefault("JAX_NUM_CPU_DEVICES", "8")
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
