#!/usr/bin/env python3
"""Builds the npm tarballs of agent-sdk with `npm pack`: the main package `@agent-sdk/cli`
(the `agent-sdk` and `bdk` commands, a launcher) and the platform package that carries the
given binary. The version of both is Cargo.toml's; the platforms are platforms.json's.

    python3 packaging/npm/build.py [--binary target/release/agent-sdk] [--platform linux-x64] [--out target/npm]

Prints the path of each tarball, the main package's first. Needs python3 (3.11+), node and npm.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:
    sys.exit(f"build.py: needs Python 3.11 or newer (for tomllib), not {sys.version.split()[0]}")

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    target = Path(os.environ.get("CARGO_TARGET_DIR") or REPO / "target")
    parser.add_argument("--binary", type=Path, default=target / "release/agent-sdk",
                        help="the agent-sdk binary to ship (default: target/release/agent-sdk, "
                        "under $CARGO_TARGET_DIR if set)")
    parser.add_argument("--platform", help="the platforms.json key the binary is built for "
                        "(default: this machine's, e.g. linux-x64)")
    parser.add_argument("--out", type=Path, default=REPO / "target/npm",
                        help="the folder the tarballs are written to (default: target/npm)")
    args = parser.parse_args()

    platforms = json.loads((HERE / "platforms.json").read_text())
    key = args.platform or this_platform()
    if key not in platforms:
        return fail(f"no platform {key!r} in {HERE / 'platforms.json'} (it has {', '.join(platforms)}); "
                    "add it there, or name one with --platform")
    if not args.binary.is_file():
        return fail(f"no binary at {args.binary}: build it first (`cargo build --release`) or name it with --binary")
    version = tomllib.loads((REPO / "Cargo.toml").read_text())["package"]["version"]

    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="agent-sdk-npm-") as staging:
        staging = Path(staging)
        main_package = stage_main_package(staging / "main", version, platforms)
        platform_package = stage_platform_package(staging / "platform", version, platforms[key], args.binary)
        for package in (main_package, platform_package):
            print(pack(package, args.out.resolve()))
    return 0


def this_platform() -> str:
    """This machine's platforms.json key, in Node's words (`process.platform`-`process.arch`)."""
    return node("process.platform + '-' + process.arch")


def stage_main_package(folder: Path, version: str, platforms: dict) -> Path:
    shutil.copytree(HERE / "cli", folder)
    shutil.copy(HERE / "platforms.json", folder / "platforms.json")
    manifest = json.loads((folder / "package.json").read_text())
    del manifest["//"]
    manifest["version"] = version
    # Exact versions: the launcher and the binary come from the same build.
    manifest["optionalDependencies"] = {platform["package"]: version for platform in platforms.values()}
    write_manifest(folder, manifest)
    return folder


def stage_platform_package(folder: Path, version: str, platform: dict, binary: Path) -> Path:
    (folder / "bin").mkdir(parents=True)
    target = folder / "bin" / platform["binary"]
    shutil.copyfile(binary, target)
    target.chmod(0o755)
    main_manifest = json.loads((HERE / "cli" / "package.json").read_text())
    manifest = {
        "name": platform["package"],
        "version": version,
        "description": f"The {platform['os']}-{platform['cpu']} binary of {main_manifest['name']}: "
                       f"install {main_manifest['name']}, not this",
        "license": main_manifest["license"],
        # npm installs the one package whose os, cpu (and libc) match the machine.
        "os": [platform["os"]],
        "cpu": [platform["cpu"]],
        **({"libc": [platform["libc"]]} if "libc" in platform else {}),
        "files": [f"bin/{platform['binary']}"],
        # Yarn PnP: a binary must be a real file on disk to be run.
        "preferUnplugged": True,
    }
    write_manifest(folder, manifest)
    return folder


def write_manifest(folder: Path, manifest: dict) -> None:
    (folder / "package.json").write_text(json.dumps(manifest, indent=2) + "\n")


def pack(folder: Path, out: Path) -> Path:
    """`npm pack` of `folder` into `out`; the tarball's path."""
    packed = subprocess.run(["npm", "pack", "--json", "--pack-destination", str(out)],
                            cwd=folder, check=True, stdout=subprocess.PIPE, text=True)
    return out / json.loads(packed.stdout)[0]["filename"]


def node(expression: str) -> str:
    return subprocess.run(["node", "-p", expression], check=True, stdout=subprocess.PIPE, text=True).stdout.strip()


def fail(message: str) -> int:
    print(f"build.py: {message}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
