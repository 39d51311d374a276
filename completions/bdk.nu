module completions {

  def "nu-complete bdk color" [] {
    [ "auto" "always" "never" ]
  }

  # A fast, exact toolchain for TypeScript agent hooks
  export extern bdk [
    --color: string@"nu-complete bdk color" # When to use colour: `auto` uses it on a terminal, never with `NO_COLOR` set, and even in a pipe with `FORCE_COLOR` or `CLICOLOR_FORCE` set (not `0`)
    --quiet(-q)               # Print only results, findings and errors: no summary or progress lines
    --help(-h)                # Print help (see more with '--help')
    --version(-V)             # Print version
  ]

  def "nu-complete bdk validate format" [] {
    [ "pretty" "json" "github" "sarif" "concise" ]
  }

  def "nu-complete bdk validate color" [] {
    [ "auto" "always" "never" ]
  }

  # Find every hook and check it statically; exit 1 if any has an error
  export extern "bdk validate" [
    --dir: path               # The project root, as PATH: the folder that holds `bot/` or `agent/`
    --format: string@"nu-complete bdk validate format" # How to print the findings [default: pretty, or github when GITHUB_ACTIONS=true]
    --deny-warnings           # Fail (exit 1) on warnings too, not only on errors
    --max-warnings: string    # Fail (exit 1) when there are more than N warnings (errors always fail), as eslint's flag of the same name: a budget to bring down over time. 0 is --deny-warnings
    --fix                     # Apply the safe fixes of the findings that know one, check again, and report what remains. Only files inside the project change; never one under node_modules/
    --unsafe-fixes            # Apply the unsafe fixes too: they may change what the code does (adding a timeout to a `fetch`, importing from another module). Implies --fix
    --verbose(-v)             # Say on stderr which settings file was read (agent-sdk.json or agent-sdk.jsonc, or a package.json's "agentSdk" key), or that none was
    --no-exec                 # Run no code at all: extension mounts are checked statically, and each gets an `extensions::not-run` note (what it mounts is not checked). The settings' "noExec" does the same
    --pass-env: string        # Give the extension mounts' Node this variable of the environment (repeatable), for an extension whose options read one; every other variable is left out
    --color: string@"nu-complete bdk validate color" # When to use colour: `auto` uses it on a terminal, never with `NO_COLOR` set, and even in a pipe with `FORCE_COLOR` or `CLICOLOR_FORCE` set (not `0`)
    --quiet(-q)               # Print only results, findings and errors: no summary or progress lines
    --help(-h)                # Print help (see more with '--help')
    --version(-V)             # Print version
    ...path: path             # A project root (the folder that holds `bot/` or `agent/`; a folder without one checks every agent one or two levels below it), or files: each file is checked in the project found from its folder up, and only its findings are reported (for pre-commit and lint-staged, which pass the staged files). By default the nearest project from the current folder up
  ]

  def "nu-complete bdk info format" [] {
    [ "tree" "json" ]
  }

  def "nu-complete bdk info color" [] {
    [ "auto" "always" "never" ]
  }

  # Describe the project: its agent and the hooks that would load
  export extern "bdk info" [
    --dir: path               # The project root, as PATH: the folder that holds `bot/` or `agent/`
    --json                    # Print the stable JSON description (schemaVersion 1) instead of a tree: the same as --format json
    --format: string@"nu-complete bdk info format" # How to print the description: a tree (the default) or JSON (as --json)
    --no-exec                 # Run no code at all: extension mounts are checked statically, and each gets an `extensions::not-run` note (what it mounts is not checked). The settings' "noExec" does the same
    --pass-env: string        # Give the extension mounts' Node this variable of the environment (repeatable), for an extension whose options read one; every other variable is left out
    --color: string@"nu-complete bdk info color" # When to use colour: `auto` uses it on a terminal, never with `NO_COLOR` set, and even in a pipe with `FORCE_COLOR` or `CLICOLOR_FORCE` set (not `0`)
    --quiet(-q)               # Print only results, findings and errors: no summary or progress lines
    --help(-h)                # Print help (see more with '--help')
    --version(-V)             # Print version
    path?: path               # The project root: the folder that holds `bot/` or `agent/`. By default the nearest such folder, from the current one up
  ]

  def "nu-complete bdk run event" [] {
    [ "message.received" "message.appended" "reasoning.appended" "message.completed" "actions.requested" "action.result" "action.tool_retry" "actions.completed" "turn.completed" "turn.failed" ]
  }

  def "nu-complete bdk run purpose" [] {
    [ "live" "eval" ]
  }

  def "nu-complete bdk run mode" [] {
    [ "chat" "task" ]
  }

  def "nu-complete bdk run log_format" [] {
    [ "text" "json" ]
  }

  def "nu-complete bdk run color" [] {
    [ "auto" "always" "never" ]
  }

  # Run one local turn: record its events and fire the hooks for real in Node.js
  export extern "bdk run" [
    --dir: path               # The project root, as PATH: the folder that holds `bot/` or `agent/`
    --message(-m): string     # The user's message: runs one turn of the agent on the model (`--model`)
    --replay: path            # Dispatch a recorded event stream (NDJSON envelopes, e.g. a previous `--json` output) instead of calling a model; `-` reads it from standard input
    --event: string@"nu-complete bdk run event" # Dispatch one synthetic event of this type, with a realistic default payload
    --data: string            # Fields of the `--event`'s `data`, as a JSON object, merged over its example payload (a field given replaces the example's); the result must fit the event's type
    --script: path            # Script the `local` model's turn (reasoning, tool calls, retries, pauses, a failure): a JSON file `{ "steps": [ { "text": "…" }, { "tools": [ { "toolName": "…" } ] }, … ] }`
    --session: string         # Continue this session (its events are appended after the recorded ones)
    --redeliver               # Dispatch the session's recorded events its hooks never saw (a run ended before dispatching them), before the new turn if one is given. Without it they are only counted in the log: delivery is at most once
    --purpose: string@"nu-complete bdk run purpose" # `ctx.session.purpose`
    --mode: string@"nu-complete bdk run mode" # `ctx.session.mode`
    --json                    # Print the recorded events as NDJSON on stdout instead of the reply
    --hook-timeout: string    # How long one handler may run before it is logged as timed out: `500ms`, `30s`, `1.5h`…
    --log-format: string@"nu-complete bdk run log_format" # The serve log's format on stderr
    --env-file: path          # Also read variables for the hooks from this file (after `<dir>/.env`; repeatable; later files win, the shell's own variables win over every file)
    --no-env-file             # Read no environment file, not even `<dir>/.env`
    --model: string           # The model that answers: `local` (embedded, deterministic, no network or key), `openai:<model>`, `xai:<model>`, or `openai-compatible:<model>` with --base-url. Default: AGENT_SDK_MODEL, else `local`. The key is read from OPENAI_API_KEY, XAI_API_KEY or OPENAI_COMPATIBLE_API_KEY (optional); all from the shell, else .env
    --base-url: string        # The model server's base URL, ending in `/v1`: required by `openai-compatible:`; for `openai:` it replaces OPENAI_BASE_URL and the official URL, for `xai:` xAI's
    --tools: path             # Tools to offer the model: a JSON file holding an OpenAI `tools` array. Each call is recorded and answered with a stubbed dry-run result; no tool runs
    --max-steps: string       # The most requests one turn makes to the model (answering its tool calls starts the next)
    --model-retries: string   # How often a request is retried when the server is rate limiting (429, honouring Retry-After), failing for the moment (500, 502, 503, 504) or cannot be reached
    --model-connect-timeout: string # How long connecting to the model server may take
    --model-idle-timeout: string # How long the model server may send no data (before its answer starts, or within it) before the turn fails; keep-alive comments and part of an event are not data
    --model-max-duration: string # How long the model may take to answer one turn (every request, retry and tool step of it) before the turn fails
    --color: string@"nu-complete bdk run color" # When to use colour: `auto` uses it on a terminal, never with `NO_COLOR` set, and even in a pipe with `FORCE_COLOR` or `CLICOLOR_FORCE` set (not `0`)
    --quiet(-q)               # Print only results, findings and errors: no summary or progress lines
    --help(-h)                # Print help (see more with '--help')
    --version(-V)             # Print version
    path?: path               # The project root: the folder that holds `bot/` or `agent/`. By default the nearest such folder, from the current one up
  ]

  def "nu-complete bdk dev log_format" [] {
    [ "text" "json" ]
  }

  def "nu-complete bdk dev color" [] {
    [ "auto" "always" "never" ]
  }

  # Serve the agent locally over HTTP: many sessions, many turns, hooks as in `run`
  export extern "bdk dev" [
    --dir: path               # The project root, as PATH: the folder that holds `bot/` or `agent/`
    --port: string            # The port to listen on: 7311 unless given; 0 picks a free one (`dev.json` says which). A second server of a project one already serves needs a port of its own
    --host: string            # The address to listen on. Anything but loopback exposes the agent to the network: it needs --allow-remote
    --allow-remote            # Allow listening on a non-loopback address
    --rotate-token            # Make a new bearer token (the old one stops working)
    --bearer-token: string    # Also let in callers that send this secret as their bearer token (the vendor's flag); the token of `.agent-sdk/dev.json` still works
    --allow-anonymous         # Let in callers that send no token at all (a wrong token is still refused). Each caller's hosting-API sessions stay its own
    --hook-timeout: string    # How long one handler may run before it is logged as timed out: `500ms`, `30s`, `1.5h`…
    --session-idle: string    # How long a session may sit idle before it is put to rest: its Node.js runtime and its thread are given back, and it no longer counts against --max-sessions. Its next message brings it back, with its history
    --max-sessions: string    # How many sessions may be live at once (each has a thread and, once it has had a turn, a Node.js runtime); beyond it, new and resting sessions are answered 429
    --log-format: string@"nu-complete bdk dev log_format" # The serve log's format on stderr
    --env-file: path          # Also read variables for the hooks from this file (after `<dir>/.env`; repeatable; later files win, the shell's own variables win over every file)
    --no-env-file             # Read no environment file, not even `<dir>/.env`
    --model: string           # The model that answers: `local` (embedded, deterministic, no network or key), `openai:<model>`, `xai:<model>`, or `openai-compatible:<model>` with --base-url. Default: AGENT_SDK_MODEL, else `local`. The key is read from OPENAI_API_KEY, XAI_API_KEY or OPENAI_COMPATIBLE_API_KEY (optional); all from the shell, else .env
    --base-url: string        # The model server's base URL, ending in `/v1`: required by `openai-compatible:`; for `openai:` it replaces OPENAI_BASE_URL and the official URL, for `xai:` xAI's
    --tools: path             # Tools to offer the model: a JSON file holding an OpenAI `tools` array. Each call is recorded and answered with a stubbed dry-run result; no tool runs
    --max-steps: string       # The most requests one turn makes to the model (answering its tool calls starts the next)
    --model-retries: string   # How often a request is retried when the server is rate limiting (429, honouring Retry-After), failing for the moment (500, 502, 503, 504) or cannot be reached
    --model-connect-timeout: string # How long connecting to the model server may take
    --model-idle-timeout: string # How long the model server may send no data (before its answer starts, or within it) before the turn fails; keep-alive comments and part of an event are not data
    --model-max-duration: string # How long the model may take to answer one turn (every request, retry and tool step of it) before the turn fails
    --color: string@"nu-complete bdk dev color" # When to use colour: `auto` uses it on a terminal, never with `NO_COLOR` set, and even in a pipe with `FORCE_COLOR` or `CLICOLOR_FORCE` set (not `0`)
    --quiet(-q)               # Print only results, findings and errors: no summary or progress lines
    --help(-h)                # Print help (see more with '--help')
    --version(-V)             # Print version
    path?: path               # The project root: the folder that holds `bot/` or `agent/`. By default the nearest such folder, from the current one up
  ]

  def "nu-complete bdk test reporter" [] {
    [ "spec" "dot" "tap" "junit" "lcov" "github" ]
  }

  def "nu-complete bdk test color" [] {
    [ "auto" "always" "never" ]
  }

  # Run the hooks' tests (`*.test.*`, `*.spec.*` under `bot/` or `agent/`) with Node's test runner, loading the project's code exactly as `run` does
  export extern "bdk test" [
    --dir: path               # The project root: the folder that holds `bot/` or `agent/`. By default the nearest such folder, from the current one up
    --watch                   # Run the tests again whenever the agent's code changes, until Ctrl-C
    --test-name-pattern(-t): string # Run only the tests whose name matches this regular expression (repeatable: a test that matches any runs), as Node's `--test-name-pattern` does: `/refund/i` for flags; a suite's name counts for the tests in it. When no test matches, exit 1
    --reporter: string@"nu-complete bdk test reporter" # How the results are reported (repeatable, each to its --reporter-destination). Without it: `spec`, and `github` too when GITHUB_ACTIONS=true (as vitest does)
    --reporter-destination: path # Where each --reporter writes, in the same order (as Node pairs them): `stdout`, `stderr` or a file, whose folders are created. One for each --reporter, or none for a single one: stdout
    --coverage                # Measure which lines of the agent's code the tests run (Node's test coverage) and report them after the results, on the `.ts` sources (`--reporter lcov` writes them for other tools). Node.js ≥ 22.8 names the lines exactly and leaves the test files and agent-sdk's own modules out; an older one is said to get them wrong
    --env-file: path          # Read variables for the tests from this file (repeatable; later files win, the shell's own variables win over every file). `.env` is read only when named here (`--env-file .env`)
    --no-env-file             # Accepted for scripts written when tests read `.env`: they read none unless named
    --color: string@"nu-complete bdk test color" # When to use colour: `auto` uses it on a terminal, never with `NO_COLOR` set, and even in a pipe with `FORCE_COLOR` or `CLICOLOR_FORCE` set (not `0`)
    --quiet(-q)               # Print only results, findings and errors: no summary or progress lines
    --help(-h)                # Print help (see more with '--help')
    --version(-V)             # Print version
    ...patterns: string       # Run only the test files matching one of these globs: over the path relative to --dir (`bot/hooks/*.test.ts`; `*` stays within a folder, `**` crosses folders), or over the file name when the glob has no `/` (`usage*`)
  ]

  def "nu-complete bdk logs level" [] {
    [ "debug" "info" "warn" "error" ]
  }

  def "nu-complete bdk logs color" [] {
    [ "auto" "always" "never" ]
  }

  # Tail the serve log of a hosted agent or a local `agent-sdk dev`
  export extern "bdk logs" [
    --dir: path               # The project root, as PATH: the folder that holds `bot/` or `agent/`
    --host: string            # The server's URL (else AGENT_SDK_HOST, else the local dev.json)
    --token: string           # The bearer token (else AGENT_SDK_TOKEN, else the local dev.json). Never printed
    --follow(-f)              # Keep following new lines after the history
    --since: string           # Only lines from this long ago (`30s`, `10m`, `1.5h`, `1h 30m`) or since an RFC 3339 time
    --session: string         # Only this session's lines: its id, or the end of it that each line shows (the tag, `43c2d23a`), when one session's id ends so
    --hook: string            # Only the lines of this hook (as each line names it, `hook "audit/usage"`); repeat it for several
    --level: string@"nu-complete bdk logs level" # Only lines at this level or above
    --tail: string            # Only the last N lines of the history
    --json                    # One JSON record a line (NDJSON), each with its cursor as `id`
    --utc                     # Print times in UTC instead of local time
    --insecure                # Allow sending the token over plain HTTP to a host that is not loopback
    --retry-for: string       # After a lost connection, how long to keep trying before giving up with exit 1
    --color: string@"nu-complete bdk logs color" # When to use colour: `auto` uses it on a terminal, never with `NO_COLOR` set, and even in a pipe with `FORCE_COLOR` or `CLICOLOR_FORCE` set (not `0`)
    --quiet(-q)               # Print only results, findings and errors: no summary or progress lines
    --help(-h)                # Print help (see more with '--help')
    --version(-V)             # Print version
    path?: path               # The project root: the folder that holds `bot/` or `agent/`. By default the nearest such folder, from the current one up
  ]

  def "nu-complete bdk chat color" [] {
    [ "auto" "always" "never" ]
  }

  # Talk to the agent a local `agent-sdk dev` (or a hosted agent) serves
  export extern "bdk chat" [
    --dir: path               # The project root, as PATH: the folder that holds `bot/` or `agent/`
    --url: string             # The agent's URL (else AGENT_SDK_HOST, else the local dev.json's server)
    --token: string           # The bearer token (else AGENT_SDK_TOKEN, else the local dev.json). Never printed
    --message(-m): string     # Send this one message and exit
    --session: string         # Continue this session (one chat started here: its continuation token is kept in `.agent-sdk/chat.json`)
    --json                    # Print each turn's events (NDJSON envelopes) instead of the reply
    --insecure                # Allow sending the token over plain HTTP to a host that is not loopback
    --hooks-for: string       # How long to wait for a turn's hooks to finish before the reply is left at that
    --color: string@"nu-complete bdk chat color" # When to use colour: `auto` uses it on a terminal, never with `NO_COLOR` set, and even in a pipe with `FORCE_COLOR` or `CLICOLOR_FORCE` set (not `0`)
    --quiet(-q)               # Print only results, findings and errors: no summary or progress lines
    --help(-h)                # Print help (see more with '--help')
    --version(-V)             # Print version
    path?: path               # The project root: the folder that holds `bot/` or `agent/`. By default the nearest such folder, from the current one up
  ]

  def "nu-complete bdk sdk color" [] {
    [ "auto" "always" "never" ]
  }

  # Write the SDK packages into `vendor/agent-sdk/`, with their TypeScript declarations
  export extern "bdk sdk" [
    --dir: path               # The project root, as PATH: the folder that holds `bot/` or `agent/`
    --update-package-json     # Add the SDK packages to the dependencies of the project's `package.json` when it does not name them (without it, sdk only says what to add)
    --force                   # Take over what agent-sdk did not write where a package goes (a package without its stamp, in `vendor/agent-sdk/` or `node_modules/`): a folder gets the SDK's files, a link is replaced by a copy. Without it sdk refuses, and writes nothing. Nothing is ever written through a link out of the project
    --color: string@"nu-complete bdk sdk color" # When to use colour: `auto` uses it on a terminal, never with `NO_COLOR` set, and even in a pipe with `FORCE_COLOR` or `CLICOLOR_FORCE` set (not `0`)
    --quiet(-q)               # Print only results, findings and errors: no summary or progress lines
    --help(-h)                # Print help (see more with '--help')
    --version(-V)             # Print version
    path?: path               # The project root: the folder that holds `bot/` or `agent/`. By default the nearest such folder, from the current one up
  ]

  def "nu-complete bdk init layout" [] {
    [ "bot" "agent" ]
  }

  def "nu-complete bdk init sdk" [] {
    [ "@cursor/bdk" "@grok/agent-sdk" "@cursor/july" ]
  }

  def "nu-complete bdk init color" [] {
    [ "auto" "always" "never" ]
  }

  # Create a working agent project: hooks, their test, tsconfig and the SDK packages
  export extern "bdk init" [
    --layout: string@"nu-complete bdk init layout" # The source folder: `bot` (the BDK layout) or `agent` (the Agent SDK layout)
    --name: string            # The agent's name (`package.json`'s `name`); by default the folder's name
    --force                   # Overwrite the scaffold's files where they exist, and take over the SDK packages' folders where agent-sdk did not write them (as `sdk --force`). Nothing is ever written through a link that leads out of the folder
    --sdk: string@"nu-complete bdk init sdk" # The SDK package the hooks import from; by default the layout's: `@cursor/bdk` for `bot`, `@grok/agent-sdk` for `agent`
    --update-package-json     # Add the scripts and dependencies the scaffold needs to an existing `package.json` (without it, init only says what to add)
    --color: string@"nu-complete bdk init color" # When to use colour: `auto` uses it on a terminal, never with `NO_COLOR` set, and even in a pipe with `FORCE_COLOR` or `CLICOLOR_FORCE` set (not `0`)
    --quiet(-q)               # Print only results, findings and errors: no summary or progress lines
    --help(-h)                # Print help (see more with '--help')
    --version(-V)             # Print version
    dir?: path                # The project folder (made when missing)
  ]

  def "nu-complete bdk completions shell" [] {
    [ "bash" "elvish" "fish" "nushell" "powershell" "zsh" ]
  }

  def "nu-complete bdk completions color" [] {
    [ "auto" "always" "never" ]
  }

  # Print a shell completion script to stdout
  export extern "bdk completions" [
    --color: string@"nu-complete bdk completions color" # When to use colour: `auto` uses it on a terminal, never with `NO_COLOR` set, and even in a pipe with `FORCE_COLOR` or `CLICOLOR_FORCE` set (not `0`)
    --quiet(-q)               # Print only results, findings and errors: no summary or progress lines
    --help(-h)                # Print help (see more with '--help')
    --version(-V)             # Print version
    shell: string@"nu-complete bdk completions shell" # The shell to complete for
  ]

  def "nu-complete bdk lsp color" [] {
    [ "auto" "always" "never" ]
  }

  # Serve the Language Server Protocol over stdio, for editors
  export extern "bdk lsp" [
    --stdio                   # Speak over stdin and stdout (the only way; accepted because editors pass it)
    --color: string@"nu-complete bdk lsp color" # When to use colour: `auto` uses it on a terminal, never with `NO_COLOR` set, and even in a pipe with `FORCE_COLOR` or `CLICOLOR_FORCE` set (not `0`)
    --quiet(-q)               # Print only results, findings and errors: no summary or progress lines
    --help(-h)                # Print help (see more with '--help')
    --version(-V)             # Print version
  ]

  def "nu-complete bdk help command" [] {
    [ "validate" "info" "run" "dev" "test" "logs" "chat" "sdk" "init" "completions" "lsp" "help" ]
  }

  def "nu-complete bdk help color" [] {
    [ "auto" "always" "never" ]
  }

  # Print the command index, a command's help, every command's, or a command as JSON
  export extern "bdk help" [
    --all                     # Print every command's help, one after another
    --json                    # Print the arguments and flags as JSON: the command's, or with no command the program's, with every command's
    --color: string@"nu-complete bdk help color" # When to use colour: `auto` uses it on a terminal, never with `NO_COLOR` set, and even in a pipe with `FORCE_COLOR` or `CLICOLOR_FORCE` set (not `0`)
    --quiet(-q)               # Print only results, findings and errors: no summary or progress lines
    --help(-h)                # Print help (see more with '--help')
    --version(-V)             # Print version
    command?: string@"nu-complete bdk help command" # The command whose help to print (none: the index)
  ]

}

export use completions *
