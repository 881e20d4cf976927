"""Builds hoglake._hoglake, the C extension over libhoglake.

libhoglake is found with pkg-config (hoglake.pc, installed by
`cmake --install`): set PKG_CONFIG_PATH for a prefix other than the
system's. HOGLAKE_EXTRA_CFLAGS adds compiler and linker flags (the
sanitizer flags of a sanitized libhoglake). Offline and without build
isolation:

    pip install --no-build-isolation ./python
"""

import os
import shlex
import subprocess

from setuptools import Extension, setup


def pkg_config(*args):
    try:
        out = subprocess.run(
            ["pkg-config", *args, "hoglake"], check=True, capture_output=True, text=True
        ).stdout
    except FileNotFoundError:
        raise SystemExit("pkg-config is missing: apt-get install pkg-config")
    except subprocess.CalledProcessError as e:
        raise SystemExit(
            "libhoglake not found by pkg-config (install it with cmake --install and set "
            "PKG_CONFIG_PATH to <prefix>/lib/pkgconfig): " + e.stderr.strip()
        )
    return shlex.split(out)


here = os.path.dirname(os.path.abspath(__file__))
cflags = pkg_config("--cflags")
libs = pkg_config("--libs")
libdir = pkg_config("--variable=libdir")[0]
extra = shlex.split(os.environ.get("HOGLAKE_EXTRA_CFLAGS", ""))

setup(
    name="hoglake",
    version="0.1.0",
    description="Python client of the hoglake lakehouse catalog (a C extension over libhoglake)",
    packages=["hoglake"],
    package_data={"hoglake": ["__init__.pyi", "py.typed"]},
    python_requires=">=3.9",
    ext_modules=[
        Extension(
            "hoglake._hoglake",
            sources=sorted(
                os.path.join("src", f) for f in os.listdir(os.path.join(here, "src"))
                if f.endswith(".c")
            ),
            depends=[os.path.join("src", "hlpy.h"), os.path.join("src", "plain_scalar.h")],
            extra_compile_args=cflags + ["-std=c11", "-Wall", "-Wextra", "-Wshadow", "-Wconversion", "-Wno-sign-conversion"] + extra,
            extra_link_args=libs + extra,
            # The installed module finds libhoglake where pkg-config did.
            runtime_library_dirs=[libdir],
        )
    ],
)
