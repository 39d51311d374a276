# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_agent_sdk_global_optspecs
    string join \n color= q/quiet h/help V/version
end

function __fish_agent_sdk_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_agent_sdk_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_agent_sdk_using_subcommand
    set -l cmd (__fish_agent_sdk_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c agent-sdk -n "__fish_agent_sdk_needs_command" -l color -d 'When to use colour: `auto` uses it on a terminal, never with `NO_COLOR` set, and even in a pipe with `FORCE_COLOR` or `CLICOLOR_FORCE` set (not `0`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c agent-sdk -n "__fish_agent_sdk_needs_command" -s q -l quiet -d 'Print only results, findings and errors: no summary or progress lines'
complete -c agent-sdk -n "__fish_agent_sdk_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c agent-sdk -n "__fish_agent_sdk_needs_command" -s V -l version -d 'Print version'
complete -c agent-sdk -n "__fish_agent_sdk_needs_command" -f -a "validate" -d 'Find every hook and check it statically; exit 1 if any has an error'
complete -c agent-sdk -n "__fish_agent_sdk_needs_command" -f -a "info" -d 'Describe the project: its agent and the hooks that would load'
complete -c agent-sdk -n "__fish_agent_sdk_needs_command" -f -a "run" -d 'Run one local turn: record its events and fire the hooks for real in Node.js'
complete -c agent-sdk -n "__fish_agent_sdk_needs_command" -f -a "dev" -d 'Serve the agent locally over HTTP: many sessions, many turns, hooks as in `run`'
complete -c agent-sdk -n "__fish_agent_sdk_needs_command" -f -a "test" -d 'Run the hooks\' tests (`*.test.*`, `*.spec.*` under `bot/` or `agent/`) with Node\'s test runner, loading the project\'s code exactly as `run` does'
complete -c agent-sdk -n "__fish_agent_sdk_needs_command" -f -a "logs" -d 'Tail the serve log of a hosted agent or a local `agent-sdk dev`'
complete -c agent-sdk -n "__fish_agent_sdk_needs_command" -f -a "chat" -d 'Talk to the agent a local `agent-sdk dev` (or a hosted agent) serves'
complete -c agent-sdk -n "__fish_agent_sdk_needs_command" -f -a "sdk" -d 'Write the SDK packages into `vendor/agent-sdk/`, with their TypeScript declarations'
complete -c agent-sdk -n "__fish_agent_sdk_needs_command" -f -a "init" -d 'Create a working agent project: hooks, their test, tsconfig and the SDK packages'
complete -c agent-sdk -n "__fish_agent_sdk_needs_command" -f -a "completions" -d 'Print a shell completion script to stdout'
complete -c agent-sdk -n "__fish_agent_sdk_needs_command" -f -a "lsp" -d 'Serve the Language Server Protocol over stdio, for editors'
complete -c agent-sdk -n "__fish_agent_sdk_needs_command" -f -a "help" -d 'Print the command index, a command\'s help, every command\'s, or a command as JSON'
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand validate" -l dir -d 'The project root, as PATH: the folder that holds `bot/` or `agent/`' -r -F
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand validate" -l format -d 'How to print the findings [default: pretty, or github when GITHUB_ACTIONS=true]' -r -f -a "pretty\t'Source snippets with labels; colour on a terminal'
json\t'One JSON document (schemaVersion 1), documented in docs/formats.md'
github\t'GitHub Actions workflow commands (`::error file=…`), one per line'
sarif\t'SARIF 2.1.0, for code-scanning uploads'
concise\t'One line per finding, `path:line:col: severity code message`, for editors and grep'"
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand validate" -l max-warnings -d 'Fail (exit 1) when there are more than N warnings (errors always fail), as eslint\'s flag of the same name: a budget to bring down over time. 0 is --deny-warnings' -r
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand validate" -l pass-env -d 'Give the extension mounts\' Node this variable of the environment (repeatable), for an extension whose options read one; every other variable is left out' -r
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand validate" -l color -d 'When to use colour: `auto` uses it on a terminal, never with `NO_COLOR` set, and even in a pipe with `FORCE_COLOR` or `CLICOLOR_FORCE` set (not `0`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand validate" -l deny-warnings -d 'Fail (exit 1) on warnings too, not only on errors'
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand validate" -l fix -d 'Apply the safe fixes of the findings that know one, check again, and report what remains. Only files inside the project change; never one under node_modules/'
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand validate" -l unsafe-fixes -d 'Apply the unsafe fixes too: they may change what the code does (adding a timeout to a `fetch`, importing from another module). Implies --fix'
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand validate" -s v -l verbose -d 'Say on stderr which settings file was read (agent-sdk.json or agent-sdk.jsonc, or a package.json\'s "agentSdk" key), or that none was'
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand validate" -l no-exec -d 'Run no code at all: extension mounts are checked statically, and each gets an `extensions::not-run` note (what it mounts is not checked). The settings\' "noExec" does the same'
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand validate" -s q -l quiet -d 'Print only results, findings and errors: no summary or progress lines'
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand validate" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand validate" -s V -l version -d 'Print version'
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand info" -l dir -d 'The project root, as PATH: the folder that holds `bot/` or `agent/`' -r -F
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand info" -l format -d 'How to print the description: a tree (the default) or JSON (as --json)' -r -f -a "tree\t'The agent and its hooks as an indented tree'
json\t'The stable JSON description (schemaVersion 1), documented in docs/formats.md'"
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand info" -l pass-env -d 'Give the extension mounts\' Node this variable of the environment (repeatable), for an extension whose options read one; every other variable is left out' -r
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand info" -l color -d 'When to use colour: `auto` uses it on a terminal, never with `NO_COLOR` set, and even in a pipe with `FORCE_COLOR` or `CLICOLOR_FORCE` set (not `0`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand info" -l json -d 'Print the stable JSON description (schemaVersion 1) instead of a tree: the same as --format json'
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand info" -l no-exec -d 'Run no code at all: extension mounts are checked statically, and each gets an `extensions::not-run` note (what it mounts is not checked). The settings\' "noExec" does the same'
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand info" -s q -l quiet -d 'Print only results, findings and errors: no summary or progress lines'
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand info" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand info" -s V -l version -d 'Print version'
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand run" -l dir -d 'The project root, as PATH: the folder that holds `bot/` or `agent/`' -r -F
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand run" -s m -l message -d 'The user\'s message: runs one turn of the agent on the model (`--model`)' -r
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand run" -l replay -d 'Dispatch a recorded event stream (NDJSON envelopes, e.g. a previous `--json` output) instead of calling a model; `-` reads it from standard input' -r -F
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand run" -l event -d 'Dispatch one synthetic event of this type, with a realistic default payload' -r -f -a "message.received\t''
message.appended\t''
reasoning.appended\t''
message.completed\t''
actions.requested\t''
action.result\t''
action.tool_retry\t''
actions.completed\t''
turn.completed\t''
turn.failed\t''"
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand run" -l data -d 'Fields of the `--event`\'s `data`, as a JSON object, merged over its example payload (a field given replaces the example\'s); the result must fit the event\'s type' -r
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand run" -l script -d 'Script the `local` model\'s turn (reasoning, tool calls, retries, pauses, a failure): a JSON file `{ "steps": [ { "text": "…" }, { "tools": [ { "toolName": "…" } ] }, … ] }`' -r -F
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand run" -l session -d 'Continue this session (its events are appended after the recorded ones)' -r
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand run" -l purpose -d '`ctx.session.purpose`' -r -f -a "live\t''
eval\t''"
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand run" -l mode -d '`ctx.session.mode`' -r -f -a "chat\t''
task\t''"
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand run" -l hook-timeout -d 'How long one handler may run before it is logged as timed out: `500ms`, `30s`, `1.5h`…' -r
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand run" -l log-format -d 'The serve log\'s format on stderr' -r -f -a "text\t'`2026-11-30T05:52:01.123Z INFO  message`'
json\t'One JSON record a line'"
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand run" -l env-file -d 'Also read variables for the hooks from this file (after `<dir>/.env`; repeatable; later files win, the shell\'s own variables win over every file)' -r -F
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand run" -l model -d 'The model that answers: `local` (embedded, deterministic, no network or key), `openai:<model>`, `xai:<model>`, or `openai-compatible:<model>` with --base-url. Default: AGENT_SDK_MODEL, else `local`. The key is read from OPENAI_API_KEY, XAI_API_KEY or OPENAI_COMPATIBLE_API_KEY (optional); all from the shell, else .env' -r
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand run" -l base-url -d 'The model server\'s base URL, ending in `/v1`: required by `openai-compatible:`; for `openai:` it replaces OPENAI_BASE_URL and the official URL, for `xai:` xAI\'s' -r
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand run" -l tools -d 'Tools to offer the model: a JSON file holding an OpenAI `tools` array. Each call is recorded and answered with a stubbed dry-run result; no tool runs' -r -F
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand run" -l max-steps -d 'The most requests one turn makes to the model (answering its tool calls starts the next)' -r
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand run" -l model-retries -d 'How often a request is retried when the server is rate limiting (429, honouring Retry-After), failing for the moment (500, 502, 503, 504) or cannot be reached' -r
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand run" -l model-connect-timeout -d 'How long connecting to the model server may take' -r
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand run" -l model-idle-timeout -d 'How long the model server may send no data (before its answer starts, or within it) before the turn fails; keep-alive comments and part of an event are not data' -r
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand run" -l model-max-duration -d 'How long the model may take to answer one turn (every request, retry and tool step of it) before the turn fails' -r
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand run" -l color -d 'When to use colour: `auto` uses it on a terminal, never with `NO_COLOR` set, and even in a pipe with `FORCE_COLOR` or `CLICOLOR_FORCE` set (not `0`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand run" -l redeliver -d 'Dispatch the session\'s recorded events its hooks never saw (a run ended before dispatching them), before the new turn if one is given. Without it they are only counted in the log: delivery is at most once'
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand run" -l json -d 'Print the recorded events as NDJSON on stdout instead of the reply'
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand run" -l no-env-file -d 'Read no environment file, not even `<dir>/.env`'
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand run" -s q -l quiet -d 'Print only results, findings and errors: no summary or progress lines'
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand run" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand run" -s V -l version -d 'Print version'
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand dev" -l dir -d 'The project root, as PATH: the folder that holds `bot/` or `agent/`' -r -F
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand dev" -l port -d 'The port to listen on: 7311 unless given; 0 picks a free one (`dev.json` says which). A second server of a project one already serves needs a port of its own' -r
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand dev" -l host -d 'The address to listen on. Anything but loopback exposes the agent to the network: it needs --allow-remote' -r
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand dev" -l bearer-token -d 'Also let in callers that send this secret as their bearer token (the vendor\'s flag); the token of `.agent-sdk/dev.json` still works' -r
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand dev" -l hook-timeout -d 'How long one handler may run before it is logged as timed out: `500ms`, `30s`, `1.5h`…' -r
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand dev" -l session-idle -d 'How long a session may sit idle before it is put to rest: its Node.js runtime and its thread are given back, and it no longer counts against --max-sessions. Its next message brings it back, with its history' -r
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand dev" -l max-sessions -d 'How many sessions may be live at once (each has a thread and, once it has had a turn, a Node.js runtime); beyond it, new and resting sessions are answered 429' -r
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand dev" -l log-format -d 'The serve log\'s format on stderr' -r -f -a "text\t'`2026-11-30T05:52:01.123Z INFO  message`'
json\t'One JSON record a line'"
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand dev" -l env-file -d 'Also read variables for the hooks from this file (after `<dir>/.env`; repeatable; later files win, the shell\'s own variables win over every file)' -r -F
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand dev" -l model -d 'The model that answers: `local` (embedded, deterministic, no network or key), `openai:<model>`, `xai:<model>`, or `openai-compatible:<model>` with --base-url. Default: AGENT_SDK_MODEL, else `local`. The key is read from OPENAI_API_KEY, XAI_API_KEY or OPENAI_COMPATIBLE_API_KEY (optional); all from the shell, else .env' -r
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand dev" -l base-url -d 'The model server\'s base URL, ending in `/v1`: required by `openai-compatible:`; for `openai:` it replaces OPENAI_BASE_URL and the official URL, for `xai:` xAI\'s' -r
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand dev" -l tools -d 'Tools to offer the model: a JSON file holding an OpenAI `tools` array. Each call is recorded and answered with a stubbed dry-run result; no tool runs' -r -F
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand dev" -l max-steps -d 'The most requests one turn makes to the model (answering its tool calls starts the next)' -r
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand dev" -l model-retries -d 'How often a request is retried when the server is rate limiting (429, honouring Retry-After), failing for the moment (500, 502, 503, 504) or cannot be reached' -r
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand dev" -l model-connect-timeout -d 'How long connecting to the model server may take' -r
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand dev" -l model-idle-timeout -d 'How long the model server may send no data (before its answer starts, or within it) before the turn fails; keep-alive comments and part of an event are not data' -r
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand dev" -l model-max-duration -d 'How long the model may take to answer one turn (every request, retry and tool step of it) before the turn fails' -r
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand dev" -l color -d 'When to use colour: `auto` uses it on a terminal, never with `NO_COLOR` set, and even in a pipe with `FORCE_COLOR` or `CLICOLOR_FORCE` set (not `0`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand dev" -l allow-remote -d 'Allow listening on a non-loopback address'
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand dev" -l rotate-token -d 'Make a new bearer token (the old one stops working)'
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand dev" -l allow-anonymous -d 'Let in callers that send no token at all (a wrong token is still refused). Each caller\'s hosting-API sessions stay its own'
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand dev" -l no-env-file -d 'Read no environment file, not even `<dir>/.env`'
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand dev" -s q -l quiet -d 'Print only results, findings and errors: no summary or progress lines'
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand dev" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand dev" -s V -l version -d 'Print version'
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand test" -l dir -d 'The project root: the folder that holds `bot/` or `agent/`. By default the nearest such folder, from the current one up' -r -F
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand test" -s t -l test-name-pattern -d 'Run only the tests whose name matches this regular expression (repeatable: a test that matches any runs), as Node\'s `--test-name-pattern` does: `/refund/i` for flags; a suite\'s name counts for the tests in it. When no test matches, exit 1' -r
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand test" -l reporter -d 'How the results are reported (repeatable, each to its --reporter-destination). Without it: `spec`, and `github` too when GITHUB_ACTIONS=true (as vitest does)' -r -f -a "spec\t'Each test\'s name and result, the failures again at the end'
dot\t'A dot per passing test, an X per failing one'
tap\t'TAP version 13'
junit\t'JUnit XML, for CI systems\' test tabs'
lcov\t'The coverage as an LCOV file (with --coverage)'
github\t'A GitHub Actions annotation (`::error file=…,line=…`) per failed test, on the line of the `.ts` test file where it failed'"
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand test" -l reporter-destination -d 'Where each --reporter writes, in the same order (as Node pairs them): `stdout`, `stderr` or a file, whose folders are created. One for each --reporter, or none for a single one: stdout' -r -F
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand test" -l env-file -d 'Read variables for the tests from this file (repeatable; later files win, the shell\'s own variables win over every file). `.env` is read only when named here (`--env-file .env`)' -r -F
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand test" -l color -d 'When to use colour: `auto` uses it on a terminal, never with `NO_COLOR` set, and even in a pipe with `FORCE_COLOR` or `CLICOLOR_FORCE` set (not `0`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand test" -l watch -d 'Run the tests again whenever the agent\'s code changes, until Ctrl-C'
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand test" -l coverage -d 'Measure which lines of the agent\'s code the tests run (Node\'s test coverage) and report them after the results, on the `.ts` sources (`--reporter lcov` writes them for other tools). Node.js ≥ 22.8 names the lines exactly and leaves the test files and agent-sdk\'s own modules out; an older one is said to get them wrong'
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand test" -l no-env-file -d 'Accepted for scripts written when tests read `.env`: they read none unless named'
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand test" -s q -l quiet -d 'Print only results, findings and errors: no summary or progress lines'
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand test" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand test" -s V -l version -d 'Print version'
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand logs" -l dir -d 'The project root, as PATH: the folder that holds `bot/` or `agent/`' -r -F
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand logs" -l host -d 'The server\'s URL (else AGENT_SDK_HOST, else the local dev.json)' -r
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand logs" -l token -d 'The bearer token (else AGENT_SDK_TOKEN, else the local dev.json). Never printed' -r
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand logs" -l since -d 'Only lines from this long ago (`30s`, `10m`, `1.5h`, `1h 30m`) or since an RFC 3339 time' -r
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand logs" -l session -d 'Only this session\'s lines: its id, or the end of it that each line shows (the tag, `43c2d23a`), when one session\'s id ends so' -r
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand logs" -l hook -d 'Only the lines of this hook (as each line names it, `hook "audit/usage"`); repeat it for several' -r
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand logs" -l level -d 'Only lines at this level or above' -r -f -a "debug\t''
info\t''
warn\t''
error\t''"
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand logs" -l tail -d 'Only the last N lines of the history' -r
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand logs" -l retry-for -d 'After a lost connection, how long to keep trying before giving up with exit 1' -r
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand logs" -l color -d 'When to use colour: `auto` uses it on a terminal, never with `NO_COLOR` set, and even in a pipe with `FORCE_COLOR` or `CLICOLOR_FORCE` set (not `0`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand logs" -s f -l follow -d 'Keep following new lines after the history'
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand logs" -l json -d 'One JSON record a line (NDJSON), each with its cursor as `id`'
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand logs" -l utc -d 'Print times in UTC instead of local time'
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand logs" -l insecure -d 'Allow sending the token over plain HTTP to a host that is not loopback'
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand logs" -s q -l quiet -d 'Print only results, findings and errors: no summary or progress lines'
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand logs" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand logs" -s V -l version -d 'Print version'
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand chat" -l dir -d 'The project root, as PATH: the folder that holds `bot/` or `agent/`' -r -F
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand chat" -l url -d 'The agent\'s URL (else AGENT_SDK_HOST, else the local dev.json\'s server)' -r
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand chat" -l token -d 'The bearer token (else AGENT_SDK_TOKEN, else the local dev.json). Never printed' -r
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand chat" -s m -l message -d 'Send this one message and exit' -r
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand chat" -l session -d 'Continue this session (one chat started here: its continuation token is kept in `.agent-sdk/chat.json`)' -r
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand chat" -l hooks-for -d 'How long to wait for a turn\'s hooks to finish before the reply is left at that' -r
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand chat" -l color -d 'When to use colour: `auto` uses it on a terminal, never with `NO_COLOR` set, and even in a pipe with `FORCE_COLOR` or `CLICOLOR_FORCE` set (not `0`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand chat" -l json -d 'Print each turn\'s events (NDJSON envelopes) instead of the reply'
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand chat" -l insecure -d 'Allow sending the token over plain HTTP to a host that is not loopback'
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand chat" -s q -l quiet -d 'Print only results, findings and errors: no summary or progress lines'
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand chat" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand chat" -s V -l version -d 'Print version'
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand sdk" -l dir -d 'The project root, as PATH: the folder that holds `bot/` or `agent/`' -r -F
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand sdk" -l color -d 'When to use colour: `auto` uses it on a terminal, never with `NO_COLOR` set, and even in a pipe with `FORCE_COLOR` or `CLICOLOR_FORCE` set (not `0`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand sdk" -l update-package-json -d 'Add the SDK packages to the dependencies of the project\'s `package.json` when it does not name them (without it, sdk only says what to add)'
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand sdk" -l force -d 'Take over what agent-sdk did not write where a package goes (a package without its stamp, in `vendor/agent-sdk/` or `node_modules/`): a folder gets the SDK\'s files, a link is replaced by a copy. Without it sdk refuses, and writes nothing. Nothing is ever written through a link out of the project'
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand sdk" -s q -l quiet -d 'Print only results, findings and errors: no summary or progress lines'
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand sdk" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand sdk" -s V -l version -d 'Print version'
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand init" -l layout -d 'The source folder: `bot` (the BDK layout) or `agent` (the Agent SDK layout)' -r -f -a "bot\t'`bot/`: the BDK layout'
agent\t'`agent/`: the Agent SDK layout'"
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand init" -l name -d 'The agent\'s name (`package.json`\'s `name`); by default the folder\'s name' -r
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand init" -l sdk -d 'The SDK package the hooks import from; by default the layout\'s: `@cursor/bdk` for `bot`, `@grok/agent-sdk` for `agent`' -r -f -a "@cursor/bdk\t''
@grok/agent-sdk\t''
@cursor/july\t''"
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand init" -l color -d 'When to use colour: `auto` uses it on a terminal, never with `NO_COLOR` set, and even in a pipe with `FORCE_COLOR` or `CLICOLOR_FORCE` set (not `0`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand init" -l force -d 'Overwrite the scaffold\'s files where they exist, and take over the SDK packages\' folders where agent-sdk did not write them (as `sdk --force`). Nothing is ever written through a link that leads out of the folder'
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand init" -l update-package-json -d 'Add the scripts and dependencies the scaffold needs to an existing `package.json` (without it, init only says what to add)'
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand init" -s q -l quiet -d 'Print only results, findings and errors: no summary or progress lines'
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand init" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand init" -s V -l version -d 'Print version'
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand completions" -l color -d 'When to use colour: `auto` uses it on a terminal, never with `NO_COLOR` set, and even in a pipe with `FORCE_COLOR` or `CLICOLOR_FORCE` set (not `0`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand completions" -s q -l quiet -d 'Print only results, findings and errors: no summary or progress lines'
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand completions" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand completions" -s V -l version -d 'Print version'
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand lsp" -l color -d 'When to use colour: `auto` uses it on a terminal, never with `NO_COLOR` set, and even in a pipe with `FORCE_COLOR` or `CLICOLOR_FORCE` set (not `0`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand lsp" -l stdio -d 'Speak over stdin and stdout (the only way; accepted because editors pass it)'
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand lsp" -s q -l quiet -d 'Print only results, findings and errors: no summary or progress lines'
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand lsp" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand lsp" -s V -l version -d 'Print version'
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand help" -l color -d 'When to use colour: `auto` uses it on a terminal, never with `NO_COLOR` set, and even in a pipe with `FORCE_COLOR` or `CLICOLOR_FORCE` set (not `0`)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand help" -l all -d 'Print every command\'s help, one after another'
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand help" -l json -d 'Print the arguments and flags as JSON: the command\'s, or with no command the program\'s, with every command\'s'
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand help" -s q -l quiet -d 'Print only results, findings and errors: no summary or progress lines'
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c agent-sdk -n "__fish_agent_sdk_using_subcommand help" -s V -l version -d 'Print version'
