#!/usr/bin/env python3
"""Builds the npm tarballs of agent-sdk with `npm pack`: the main package `@agent-sdk/cli`
(the `agent-sdk` and `bdk` commands, a launcher, the settings' JSON schema) and the platform packages that carry the
binaries. The version of every package is Cargo.toml's; the platforms are platforms.json's.

    python3 packaging/npm/build.py [--binary target/release/agent-sdk] [--platform linux-x64] [--out target/npm]
    python3 packaging/npm/build.py --binaries DIR [--out target/npm]

The first form packs one binary, for this machine's platform or the one named; the second
packs every platform of platforms.json at once, from DIR/<platform>/<binary> (for example
DIR/linux-x64/agent-sdk and DIR/win32-x64/agent-sdk.exe), as the release workflow does.
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
TABLE = HERE / "platforms.json"


class Refused(Exception):
    """Input build.py will not pack; the message says what is wrong and how to put it right."""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    binaries = parser.add_mutually_exclusive_group()
    binaries.add_argument("--binary", type=Path,
                          help="the agent-sdk binary to ship (default: target/release/agent-sdk, "
                          "under $CARGO_TARGET_DIR if set)")
    binaries.add_argument("--binaries", type=Path, metavar="DIR",
                          help="a folder with one binary for every platform of platforms.json, each "
                          "in a folder named by its key: DIR/linux-x64/agent-sdk, DIR/win32-x64/agent-sdk.exe, …")
    parser.add_argument("--platform", help="with --binary: the platforms.json key the binary is built for "
                        "(default: this machine's, e.g. linux-x64)")
    parser.add_argument("--out", type=Path, default=REPO / "target/npm",
                        help="the folder the tarballs are written to (default: target/npm)")
    args = parser.parse_args()
    if args.binaries and args.platform:
        parser.error("--platform names the platform of one --binary; with --binaries each folder's name is its platform")

    try:
        platforms = read_table()
        if args.binaries:
            shipped = every_binary(args.binaries, platforms)
        else:
            shipped = one_binary(args.binary, args.platform, platforms)
    except Refused as refused:
        print(f"build.py: {refused}", file=sys.stderr)
        return 1
    cargo = tomllib.loads((REPO / "Cargo.toml").read_text())["package"]
    version, repository = cargo["version"], cargo["repository"]

    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="agent-sdk-npm-") as staging:
        staging = Path(staging)
        packages = [stage_main_package(staging / "main", version, repository, platforms)]
        for key, binary in shipped.items():
            packages.append(stage_platform_package(staging / key, version, repository, key, platforms[key], binary))
        for package in packages:
            print(pack(package, args.out.resolve()))
    return 0


def read_table() -> dict:
    """platforms.json, checked: a wrong entry would give npm a package it installs on the wrong machine."""
    platforms = json.loads(TABLE.read_text())
    seen_packages, seen_machines = {}, {}
    for key, platform in platforms.items():
        where = f"{TABLE}: {key!r}"
        missing = [field for field in ("package", "os", "cpu", "binary") if not platform.get(field)]
        if missing:
            raise Refused(f"{where} has no {', '.join(missing)}")
        if platform["os"] == "linux" and platform.get("libc") not in ("glibc", "musl"):
            # Without it npm would install the glibc and the musl package alike on every Linux.
            raise Refused(f"{where} needs \"libc\": \"glibc\" or \"musl\" (both exist on Linux)")
        if platform["os"] != "linux" and "libc" in platform:
            raise Refused(f"{where} has a \"libc\", which only Linux packages have")
        if (platform["os"] == "win32") != platform["binary"].endswith(".exe"):
            raise Refused(f"{where} has the binary {platform['binary']!r}: on Windows, and only there, "
                          "it is agent-sdk.exe")
        if platform["package"] in seen_packages:
            raise Refused(f"{where} and {seen_packages[platform['package']]!r} are both {platform['package']}")
        seen_packages[platform["package"]] = key
        machine = (platform["os"], platform["cpu"], platform.get("libc"))
        if machine in seen_machines:
            # The launcher would run the first one's binary, whichever npm installed.
            raise Refused(f"{where} and {seen_machines[machine]!r} are for the same os, cpu and libc")
        seen_machines[machine] = key
    return platforms


def one_binary(binary: Path | None, key: str | None, platforms: dict) -> dict[str, Path]:
    """`--binary` (and `--platform`): the one platform package to build, as {key: binary}."""
    key = key or this_platform(platforms)
    if key not in platforms:
        raise Refused(f"no platform {key!r} in {TABLE} (it has {', '.join(platforms)}); "
                      "add it there, or name one with --platform")
    if binary is None:
        target = Path(os.environ.get("CARGO_TARGET_DIR") or REPO / "target")
        binary = target / "release" / platforms[key]["binary"]
    if not binary.is_file():
        raise Refused(f"no binary at {binary}: build it first (`cargo build --release`) or name it with --binary")
    if platforms[key]["binary"].endswith(".exe") and binary.suffix.lower() != ".exe":
        raise Refused(f"{binary} is for {key}, a Windows platform, but is not an .exe: "
                      "Windows runs only .exe files (is it a binary for another platform?)")
    return {key: binary}


def every_binary(folder: Path, platforms: dict) -> dict[str, Path]:
    """`--binaries DIR`: every platform package, as {key: DIR/key/binary}, in the table's order."""
    if not folder.is_dir():
        raise Refused(f"--binaries {folder} is not a folder")
    unknown = sorted(entry.name for entry in folder.iterdir() if entry.name not in platforms)
    if unknown:
        raise Refused(f"{folder} has {', '.join(unknown)}, which platforms.json does not name "
                      f"(it has {', '.join(platforms)}): each folder in it is named by the platform of the binary inside")
    shipped, problems = {}, []
    for key, platform in platforms.items():
        binary = folder / key / platform["binary"]
        if binary.is_file():
            shipped[key] = binary
        elif (folder / key).is_dir():
            found = ", ".join(sorted(entry.name for entry in (folder / key).iterdir())) or "nothing"
            problems.append(f"{binary} is missing ({folder / key} has {found})")
        else:
            problems.append(f"{binary} is missing (no folder {folder / key})")
    if problems:
        # All or none: the main package lists every platform package as a dependency.
        raise Refused("every platform of platforms.json needs its binary:\n  " + "\n  ".join(problems))
    return shipped


def this_platform(platforms: dict) -> str:
    """This machine's platforms.json key, chosen as the launcher chooses it (its C library too, on Linux)."""
    script = ("const launcher = require(process.argv[1]);"
              "const choice = launcher.choosePlatform(require(process.argv[2]), launcher.thisMachine());"
              "console.log(JSON.stringify(choice));")
    chosen = subprocess.run(["node", "-e", script, str(HERE / "cli" / "launcher.js"), str(TABLE)],
                            check=True, stdout=subprocess.PIPE, text=True).stdout
    choice = json.loads(chosen)
    if "key" not in choice:
        raise Refused(f"{choice['unsupported']}\nName the platform the binary is for with --platform.")
    return choice["key"]


def stage_main_package(folder: Path, version: str, repository: str, platforms: dict) -> Path:
    shutil.copytree(HERE / "cli", folder)
    shutil.copy(TABLE, folder / "platforms.json")
    # The schema of this version, for a `$schema` that works offline and matches the
    # installed binary: ./node_modules/@agent-sdk/cli/agent-sdk.schema.json.
    shutil.copy(REPO / "agent-sdk.schema.json", folder / "agent-sdk.schema.json")
    manifest = json.loads((folder / "package.json").read_text())
    del manifest["//"]
    manifest["version"] = version
    manifest["repository"] = npm_repository(repository)
    # Exact versions: the launcher and the binary come from the same build.
    manifest["optionalDependencies"] = {platform["package"]: version for platform in platforms.values()}
    write_manifest(folder, manifest)
    return folder


def stage_platform_package(folder: Path, version: str, repository: str, key: str, platform: dict,
                           binary: Path) -> Path:
    (folder / "bin").mkdir(parents=True)
    target = folder / "bin" / platform["binary"]
    shutil.copyfile(binary, target)
    # A build artefact passed between CI jobs loses its mode; the package must not.
    target.chmod(0o755)
    main_manifest = json.loads((HERE / "cli" / "package.json").read_text())
    manifest = {
        "name": platform["package"],
        "version": version,
        "description": f"The {key} binary of {main_manifest['name']}: install {main_manifest['name']}, not this",
        "license": main_manifest["license"],
        "repository": npm_repository(repository),
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


def npm_repository(repository: str) -> dict:
    """Cargo.toml's repository as npm writes one: `npm publish --provenance` refuses a package
    whose repository is not the one the workflow that publishes it runs in."""
    return {"type": "git", "url": f"git+{repository}.git"}


def write_manifest(folder: Path, manifest: dict) -> None:
    (folder / "package.json").write_text(json.dumps(manifest, indent=2) + "\n")


def pack(folder: Path, out: Path) -> Path:
    """`npm pack` of `folder` into `out`; the tarball's path."""
    packed = subprocess.run(["npm", "pack", "--json", "--pack-destination", str(out)],
                            cwd=folder, check=True, stdout=subprocess.PIPE, text=True)
    return out / json.loads(packed.stdout)[0]["filename"]


if __name__ == "__main__":
    sys.exit(main())
