// The launcher behind the `agent-sdk` and `bdk` commands of the npm package: it finds
// the platform package npm installed for this machine (one of the optionalDependencies,
// listed in platforms.json), runs its binary with the same arguments, stdio and
// environment, hands it the signals meant for it, and exits the way the binary exited.
// Plain Node.js, no dependencies: it runs before anything else could be installed.
"use strict";

const childProcess = require("child_process");
const fs = require("fs");
const os = require("os");
const path = require("path");

const { name: MAIN_PACKAGE, version: VERSION } = require("./package.json");

// What `launch` exits with when it cannot run the binary at all: the binary's own code for
// "could not do what was asked" (0 success, 1 findings, 2 error).
const LAUNCH_FAILED = 2;

// Signals the binary would not get by itself (a terminal sends its own, SIGINT and SIGQUIT,
// to the whole foreground process group: to this launcher and the binary alike).
const FORWARDED = ["SIGTERM", "SIGHUP", "SIGINT", "SIGQUIT"];
const FROM_THE_TERMINAL = new Set(["SIGINT", "SIGQUIT"]);

/** Runs this platform's binary as `name` (its argv[0]) with this process's arguments. */
function launch(name) {
  const binary = findBinary(name);
  const child = childProcess.spawn(binary, process.argv.slice(2), { stdio: "inherit", argv0: name });
  const forward = (signal) => {
    if (FROM_THE_TERMINAL.has(signal) && inForegroundOfTerminal()) return;
    child.kill(signal);
  };
  // Listening also keeps Node from dying of the signal before the binary is done with it.
  for (const signal of FORWARDED) process.on(signal, forward);
  child.on("error", (error) => fail(name, `could not start ${binary}: ${error.message}`));
  child.on("exit", (code, signal) => {
    for (const s of FORWARDED) process.removeListener(s, forward);
    if (signal) {
      // End the same way, so a shell or a supervisor sees the signal (and `$?` is 128 + n).
      process.kill(process.pid, signal);
      process.exit(128 + (os.constants.signals[signal] || 0));
    }
    process.exit(code);
  });
}

/** The binary's path inside the installed platform package; exits with a message if none fits. */
function findBinary(name) {
  // Read here, not at the top: the tests load this file from the source tree, where
  // platforms.json is not beside it (build.py copies it into the package).
  const choice = choosePlatform(require("./platforms.json"), thisMachine());
  if (choice.unsupported) fail(name, choice.unsupported);
  const { platform } = choice;
  const here = describe(platform);
  let manifest;
  try {
    manifest = require.resolve(`${platform.package}/package.json`);
  } catch {
    fail(
      name,
      `the binary for ${here} comes in ${platform.package}, an optional dependency of ${MAIN_PACKAGE}, and it is not installed.\n` +
        "npm leaves it out when optional dependencies are omitted (--omit=optional, --no-optional, or the same in " +
        "an .npmrc) or when the lockfile was made on another platform. Install it with optional dependencies " +
        `included (\`npm install --include=optional\`), or add it yourself: \`npm install -D ${platform.package}@${VERSION}\`.`,
    );
  }
  // `binary` is agent-sdk.exe on Windows, where a file runs only with its extension.
  const binary = path.join(path.dirname(manifest), "bin", platform.binary);
  if (!fs.existsSync(binary)) fail(name, `${platform.package} is installed but has no ${binary}: reinstall it.`);
  return binary;
}

/** This machine in platforms.json's words: Node's `process.platform` and `process.arch`, and on Linux its C library. */
function thisMachine() {
  return { os: process.platform, cpu: process.arch, libc: process.platform === "linux" ? linuxLibc() : undefined };
}

/**
 * The entry of `platforms` (platforms.json) whose binary runs on `machine` ({ os, cpu, libc }),
 * as `{ key, platform }`, or `{ unsupported }`: the message saying so, with what there is.
 * Looks at nothing but its arguments, so that it can be asked about any machine.
 */
function choosePlatform(platforms, machine) {
  const fits = Object.entries(platforms).find(
    ([, p]) => p.os === machine.os && p.cpu === machine.cpu && (!p.libc || p.libc === machine.libc),
  );
  if (fits) return { key: fits[0], platform: fits[1] };
  const entries = Object.values(platforms);
  const width = Math.max(...entries.map((p) => describe(p).length));
  const supported = entries.map((p) => `  ${describe(p).padEnd(width)}  ${p.package}`).join("\n");
  return {
    unsupported:
      `${MAIN_PACKAGE} has no prebuilt binary for ${describe(machine)}. It has one for:\n${supported}\n` +
      "Build it from source instead: `cargo install --path .` in a clone of the repository (see its README).",
  };
}

/** "linux-x64 (musl)", "darwin-arm64": a machine or a platform entry, as the messages name it. */
function describe({ os, cpu, libc }) {
  return `${os}-${cpu}${libc ? ` (${libc})` : ""}`;
}

/** "glibc" or "musl": the C library this Linux runs programs with. */
function linuxLibc() {
  if (process.report) {
    // Skipping the network part keeps the report from waiting on name lookups.
    process.report.excludeNetwork = true;
    const header = process.report.getReport().header;
    return header.glibcVersionRuntime ? "glibc" : "musl";
  }
  return "glibc";
}

/**
 * Whether this process is in the foreground process group of its terminal, where a
 * Ctrl-C (SIGINT) or Ctrl-\ (SIGQUIT) reaches the binary without help: passing it on
 * as well would deliver it twice, and the binary takes a second Ctrl-C as "quit now".
 */
function inForegroundOfTerminal() {
  try {
    // /proc/self/stat: "pid (comm) state ppid pgrp session tty_nr tpgid …"; comm may hold spaces.
    const stat = fs.readFileSync("/proc/self/stat", "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const processGroup = fields[2];
    const terminalForegroundGroup = fields[5];
    return processGroup === terminalForegroundGroup;
  } catch {
    // No /proc (macOS, Windows): a terminal on stdin is the best sign of one sending signals.
    return Boolean(process.stdin.isTTY);
  }
}

function fail(name, message) {
  process.stderr.write(`${name}: ${message}\n`);
  process.exit(LAUNCH_FAILED);
}

module.exports = { launch, choosePlatform, thisMachine };
