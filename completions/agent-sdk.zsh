#compdef agent-sdk

autoload -U is-at-least

_agent-sdk() {
    typeset -A opt_args
    typeset -a _arguments_options
    local ret=1

    if is-at-least 5.2; then
        _arguments_options=(-s -S -C)
    else
        _arguments_options=(-s -C)
    fi

    local context curcontext="$curcontext" state line
    _arguments "${_arguments_options[@]}" : \
'--color=[When to use colour\: \`auto\` uses it on a terminal, never with \`NO_COLOR\` set, and even in a pipe with \`FORCE_COLOR\` or \`CLICOLOR_FORCE\` set (not \`0\`)]:COLOR:(auto always never)' \
'-q[Print only results, findings and errors\: no summary or progress lines]' \
'--quiet[Print only results, findings and errors\: no summary or progress lines]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
":: :_agent-sdk_commands" \
"*::: :->agent-sdk" \
&& ret=0
    case $state in
    (agent-sdk)
        words=($line[1] "${words[@]}")
        (( CURRENT += 1 ))
        curcontext="${curcontext%:*:*}:agent-sdk-command-$line[1]:"
        case $line[1] in
            (validate)
_arguments "${_arguments_options[@]}" : \
'--dir=[The project root, as PATH\: the folder that holds \`bot/\` or \`agent/\`]:PATH:_files' \
'--format=[How to print the findings \[default\: pretty, or github when GITHUB_ACTIONS=true\]]:FORMAT:((pretty\:"Source snippets with labels; colour on a terminal"
json\:"One JSON document (schemaVersion 1), documented in docs/formats.md"
github\:"GitHub Actions workflow commands (\`\:\:error file=…\`), one per line"
sarif\:"SARIF 2.1.0, for code-scanning uploads"
concise\:"One line per finding, \`path\:line\:col\: severity code message\`, for editors and grep"))' \
'--max-warnings=[Fail (exit 1) when there are more than N warnings (errors always fail), as eslint'\''s flag of the same name\: a budget to bring down over time. 0 is --deny-warnings]:N:_default' \
'(--no-exec)*--pass-env=[Give the extension mounts'\'' Node this variable of the environment (repeatable), for an extension whose options read one; every other variable is left out]:NAME:_default' \
'--color=[When to use colour\: \`auto\` uses it on a terminal, never with \`NO_COLOR\` set, and even in a pipe with \`FORCE_COLOR\` or \`CLICOLOR_FORCE\` set (not \`0\`)]:COLOR:(auto always never)' \
'--deny-warnings[Fail (exit 1) on warnings too, not only on errors]' \
'--fix[Apply the safe fixes of the findings that know one, check again, and report what remains. Only files inside the project change; never one under node_modules/]' \
'--unsafe-fixes[Apply the unsafe fixes too\: they may change what the code does (adding a timeout to a \`fetch\`, importing from another module). Implies --fix]' \
'-v[Say on stderr which settings file was read (agent-sdk.json or agent-sdk.jsonc, or a package.json'\''s "agentSdk" key), or that none was]' \
'--verbose[Say on stderr which settings file was read (agent-sdk.json or agent-sdk.jsonc, or a package.json'\''s "agentSdk" key), or that none was]' \
'--no-exec[Run no code at all\: extension mounts are checked statically, and each gets an \`extensions\:\:not-run\` note (what it mounts is not checked). The settings'\'' "noExec" does the same]' \
'-q[Print only results, findings and errors\: no summary or progress lines]' \
'--quiet[Print only results, findings and errors\: no summary or progress lines]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
'*::path -- A project root (the folder that holds `bot/` or `agent/`; a folder without one checks every agent one or two levels below it), or files\: each file is checked in the project found from its folder up, and only its findings are reported (for pre-commit and lint-staged, which pass the staged files). By default the nearest project from the current folder up:_files' \
&& ret=0
;;
(info)
_arguments "${_arguments_options[@]}" : \
'--dir=[The project root, as PATH\: the folder that holds \`bot/\` or \`agent/\`]:PATH:_files' \
'--format=[How to print the description\: a tree (the default) or JSON (as --json)]:FORMAT:((tree\:"The agent and its hooks as an indented tree"
json\:"The stable JSON description (schemaVersion 1), documented in docs/formats.md"))' \
'(--no-exec)*--pass-env=[Give the extension mounts'\'' Node this variable of the environment (repeatable), for an extension whose options read one; every other variable is left out]:NAME:_default' \
'--color=[When to use colour\: \`auto\` uses it on a terminal, never with \`NO_COLOR\` set, and even in a pipe with \`FORCE_COLOR\` or \`CLICOLOR_FORCE\` set (not \`0\`)]:COLOR:(auto always never)' \
'(--format)--json[Print the stable JSON description (schemaVersion 1) instead of a tree\: the same as --format json]' \
'--no-exec[Run no code at all\: extension mounts are checked statically, and each gets an \`extensions\:\:not-run\` note (what it mounts is not checked). The settings'\'' "noExec" does the same]' \
'-q[Print only results, findings and errors\: no summary or progress lines]' \
'--quiet[Print only results, findings and errors\: no summary or progress lines]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
'::path -- The project root\: the folder that holds `bot/` or `agent/`. By default the nearest such folder, from the current one up:_files' \
&& ret=0
;;
(run)
_arguments "${_arguments_options[@]}" : \
'--dir=[The project root, as PATH\: the folder that holds \`bot/\` or \`agent/\`]:PATH:_files' \
'-m+[The user'\''s message\: runs one turn of the agent on the model (\`--model\`)]:MESSAGE:_default' \
'--message=[The user'\''s message\: runs one turn of the agent on the model (\`--model\`)]:MESSAGE:_default' \
'--replay=[Dispatch a recorded event stream (NDJSON envelopes, e.g. a previous \`--json\` output) instead of calling a model; \`-\` reads it from standard input]:EVENTS.JSONL:_files' \
'--event=[Dispatch one synthetic event of this type, with a realistic default payload]:TYPE:(message.received message.appended reasoning.appended message.completed actions.requested action.result action.tool_retry actions.completed turn.completed turn.failed)' \
'--data=[Fields of the \`--event\`'\''s \`data\`, as a JSON object, merged over its example payload (a field given replaces the example'\''s); the result must fit the event'\''s type]:JSON:_default' \
'--script=[Script the \`local\` model'\''s turn (reasoning, tool calls, retries, pauses, a failure)\: a JSON file \`{ "steps"\: \[ { "text"\: "…" }, { "tools"\: \[ { "toolName"\: "…" } \] }, … \] }\`]:FILE.json:_files' \
'--session=[Continue this session (its events are appended after the recorded ones)]:ID:_default' \
'--purpose=[\`ctx.session.purpose\`]:PURPOSE:(live eval)' \
'--mode=[\`ctx.session.mode\`]:MODE:(chat task)' \
'--hook-timeout=[How long one handler may run before it is logged as timed out\: \`500ms\`, \`30s\`, \`1.5h\`…]:DURATION:_default' \
'--log-format=[The serve log'\''s format on stderr]:LOG_FORMAT:((text\:"\`2026-11-30T05\:52\:01.123Z INFO  message\`"
json\:"One JSON record a line"))' \
'*--env-file=[Also read variables for the hooks from this file (after \`<dir>/.env\`; repeatable; later files win, the shell'\''s own variables win over every file)]:PATH:_files' \
'--model=[The model that answers\: \`local\` (embedded, deterministic, no network or key), \`openai\:<model>\`, \`xai\:<model>\`, or \`openai-compatible\:<model>\` with --base-url. Default\: AGENT_SDK_MODEL, else \`local\`. The key is read from OPENAI_API_KEY, XAI_API_KEY or OPENAI_COMPATIBLE_API_KEY (optional); all from the shell, else .env]:MODEL:_default' \
'--base-url=[The model server'\''s base URL, ending in \`/v1\`\: required by \`openai-compatible\:\`; for \`openai\:\` it replaces OPENAI_BASE_URL and the official URL, for \`xai\:\` xAI'\''s]:URL:_default' \
'--tools=[Tools to offer the model\: a JSON file holding an OpenAI \`tools\` array. Each call is recorded and answered with a stubbed dry-run result; no tool runs]:FILE.json:_files' \
'--max-steps=[The most requests one turn makes to the model (answering its tool calls starts the next)]:COUNT:_default' \
'--model-retries=[How often a request is retried when the server is rate limiting (429, honouring Retry-After), failing for the moment (500, 502, 503, 504) or cannot be reached]:COUNT:_default' \
'--model-connect-timeout=[How long connecting to the model server may take]:DURATION:_default' \
'--model-idle-timeout=[How long the model server may send no data (before its answer starts, or within it) before the turn fails; keep-alive comments and part of an event are not data]:DURATION:_default' \
'--model-max-duration=[How long the model may take to answer one turn (every request, retry and tool step of it) before the turn fails]:DURATION:_default' \
'--color=[When to use colour\: \`auto\` uses it on a terminal, never with \`NO_COLOR\` set, and even in a pipe with \`FORCE_COLOR\` or \`CLICOLOR_FORCE\` set (not \`0\`)]:COLOR:(auto always never)' \
'--redeliver[Dispatch the session'\''s recorded events its hooks never saw (a run ended before dispatching them), before the new turn if one is given. Without it they are only counted in the log\: delivery is at most once]' \
'--json[Print the recorded events as NDJSON on stdout instead of the reply]' \
'(--env-file)--no-env-file[Read no environment file, not even \`<dir>/.env\`]' \
'-q[Print only results, findings and errors\: no summary or progress lines]' \
'--quiet[Print only results, findings and errors\: no summary or progress lines]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
'::path -- The project root\: the folder that holds `bot/` or `agent/`. By default the nearest such folder, from the current one up:_files' \
&& ret=0
;;
(dev)
_arguments "${_arguments_options[@]}" : \
'--dir=[The project root, as PATH\: the folder that holds \`bot/\` or \`agent/\`]:PATH:_files' \
'--port=[The port to listen on\: 7311 unless given; 0 picks a free one (\`dev.json\` says which). A second server of a project one already serves needs a port of its own]:PORT:_default' \
'--host=[The address to listen on. Anything but loopback exposes the agent to the network\: it needs --allow-remote]:HOST:_default' \
'--bearer-token=[Also let in callers that send this secret as their bearer token (the vendor'\''s flag); the token of \`.agent-sdk/dev.json\` still works]:SECRET:_default' \
'--hook-timeout=[How long one handler may run before it is logged as timed out\: \`500ms\`, \`30s\`, \`1.5h\`…]:DURATION:_default' \
'--session-idle=[How long a session may sit idle before it is put to rest\: its Node.js runtime and its thread are given back, and it no longer counts against --max-sessions. Its next message brings it back, with its history]:DURATION:_default' \
'--max-sessions=[How many sessions may be live at once (each has a thread and, once it has had a turn, a Node.js runtime); beyond it, new and resting sessions are answered 429]:COUNT:_default' \
'--log-format=[The serve log'\''s format on stderr]:LOG_FORMAT:((text\:"\`2026-11-30T05\:52\:01.123Z INFO  message\`"
json\:"One JSON record a line"))' \
'*--env-file=[Also read variables for the hooks from this file (after \`<dir>/.env\`; repeatable; later files win, the shell'\''s own variables win over every file)]:PATH:_files' \
'--model=[The model that answers\: \`local\` (embedded, deterministic, no network or key), \`openai\:<model>\`, \`xai\:<model>\`, or \`openai-compatible\:<model>\` with --base-url. Default\: AGENT_SDK_MODEL, else \`local\`. The key is read from OPENAI_API_KEY, XAI_API_KEY or OPENAI_COMPATIBLE_API_KEY (optional); all from the shell, else .env]:MODEL:_default' \
'--base-url=[The model server'\''s base URL, ending in \`/v1\`\: required by \`openai-compatible\:\`; for \`openai\:\` it replaces OPENAI_BASE_URL and the official URL, for \`xai\:\` xAI'\''s]:URL:_default' \
'--tools=[Tools to offer the model\: a JSON file holding an OpenAI \`tools\` array. Each call is recorded and answered with a stubbed dry-run result; no tool runs]:FILE.json:_files' \
'--max-steps=[The most requests one turn makes to the model (answering its tool calls starts the next)]:COUNT:_default' \
'--model-retries=[How often a request is retried when the server is rate limiting (429, honouring Retry-After), failing for the moment (500, 502, 503, 504) or cannot be reached]:COUNT:_default' \
'--model-connect-timeout=[How long connecting to the model server may take]:DURATION:_default' \
'--model-idle-timeout=[How long the model server may send no data (before its answer starts, or within it) before the turn fails; keep-alive comments and part of an event are not data]:DURATION:_default' \
'--model-max-duration=[How long the model may take to answer one turn (every request, retry and tool step of it) before the turn fails]:DURATION:_default' \
'--color=[When to use colour\: \`auto\` uses it on a terminal, never with \`NO_COLOR\` set, and even in a pipe with \`FORCE_COLOR\` or \`CLICOLOR_FORCE\` set (not \`0\`)]:COLOR:(auto always never)' \
'--allow-remote[Allow listening on a non-loopback address]' \
'--rotate-token[Make a new bearer token (the old one stops working)]' \
'--allow-anonymous[Let in callers that send no token at all (a wrong token is still refused). Each caller'\''s hosting-API sessions stay its own]' \
'(--env-file)--no-env-file[Read no environment file, not even \`<dir>/.env\`]' \
'-q[Print only results, findings and errors\: no summary or progress lines]' \
'--quiet[Print only results, findings and errors\: no summary or progress lines]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
'::path -- The project root\: the folder that holds `bot/` or `agent/`. By default the nearest such folder, from the current one up:_files' \
&& ret=0
;;
(test)
_arguments "${_arguments_options[@]}" : \
'--dir=[The project root\: the folder that holds \`bot/\` or \`agent/\`. By default the nearest such folder, from the current one up]:PATH:_files' \
'*-t+[Run only the tests whose name matches this regular expression (repeatable\: a test that matches any runs), as Node'\''s \`--test-name-pattern\` does\: \`/refund/i\` for flags; a suite'\''s name counts for the tests in it. When no test matches, exit 1]:REGEX:_default' \
'*--test-name-pattern=[Run only the tests whose name matches this regular expression (repeatable\: a test that matches any runs), as Node'\''s \`--test-name-pattern\` does\: \`/refund/i\` for flags; a suite'\''s name counts for the tests in it. When no test matches, exit 1]:REGEX:_default' \
'*--reporter=[How the results are reported (repeatable, each to its --reporter-destination). Without it\: \`spec\`, and \`github\` too when GITHUB_ACTIONS=true (as vitest does)]:NAME:((spec\:"Each test'\''s name and result, the failures again at the end"
dot\:"A dot per passing test, an X per failing one"
tap\:"TAP version 13"
junit\:"JUnit XML, for CI systems'\'' test tabs"
lcov\:"The coverage as an LCOV file (with --coverage)"
github\:"A GitHub Actions annotation (\`\:\:error file=…,line=…\`) per failed test, on the line of the \`.ts\` test file where it failed"))' \
'*--reporter-destination=[Where each --reporter writes, in the same order (as Node pairs them)\: \`stdout\`, \`stderr\` or a file, whose folders are created. One for each --reporter, or none for a single one\: stdout]:stdout|stderr|FILE:_files' \
'*--env-file=[Read variables for the tests from this file (repeatable; later files win, the shell'\''s own variables win over every file). \`.env\` is read only when named here (\`--env-file .env\`)]:PATH:_files' \
'--color=[When to use colour\: \`auto\` uses it on a terminal, never with \`NO_COLOR\` set, and even in a pipe with \`FORCE_COLOR\` or \`CLICOLOR_FORCE\` set (not \`0\`)]:COLOR:(auto always never)' \
'--watch[Run the tests again whenever the agent'\''s code changes, until Ctrl-C]' \
'--coverage[Measure which lines of the agent'\''s code the tests run (Node'\''s test coverage) and report them after the results, on the \`.ts\` sources (\`--reporter lcov\` writes them for other tools). Node.js ≥ 22.8 names the lines exactly and leaves the test files and agent-sdk'\''s own modules out; an older one is said to get them wrong]' \
'(--env-file)--no-env-file[Accepted for scripts written when tests read \`.env\`\: they read none unless named]' \
'-q[Print only results, findings and errors\: no summary or progress lines]' \
'--quiet[Print only results, findings and errors\: no summary or progress lines]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
'*::patterns -- Run only the test files matching one of these globs\: over the path relative to --dir (`bot/hooks/*.test.ts`; `*` stays within a folder, `**` crosses folders), or over the file name when the glob has no `/` (`usage*`):_default' \
&& ret=0
;;
(logs)
_arguments "${_arguments_options[@]}" : \
'--dir=[The project root, as PATH\: the folder that holds \`bot/\` or \`agent/\`]:PATH:_files' \
'--host=[The server'\''s URL (else AGENT_SDK_HOST, else the local dev.json)]:URL:_default' \
'--token=[The bearer token (else AGENT_SDK_TOKEN, else the local dev.json). Never printed]:TOKEN:_default' \
'--since=[Only lines from this long ago (\`30s\`, \`10m\`, \`1.5h\`, \`1h 30m\`) or since an RFC 3339 time]:WHEN:_default' \
'--session=[Only this session'\''s lines\: its id, or the end of it that each line shows (the tag, \`43c2d23a\`), when one session'\''s id ends so]:ID:_default' \
'*--hook=[Only the lines of this hook (as each line names it, \`hook "audit/usage"\`); repeat it for several]:NAME:_default' \
'--level=[Only lines at this level or above]:LEVEL:(debug info warn error)' \
'--tail=[Only the last N lines of the history]:N:_default' \
'--retry-for=[After a lost connection, how long to keep trying before giving up with exit 1]:DURATION:_default' \
'--color=[When to use colour\: \`auto\` uses it on a terminal, never with \`NO_COLOR\` set, and even in a pipe with \`FORCE_COLOR\` or \`CLICOLOR_FORCE\` set (not \`0\`)]:COLOR:(auto always never)' \
'-f[Keep following new lines after the history]' \
'--follow[Keep following new lines after the history]' \
'--json[One JSON record a line (NDJSON), each with its cursor as \`id\`]' \
'--utc[Print times in UTC instead of local time]' \
'--insecure[Allow sending the token over plain HTTP to a host that is not loopback]' \
'-q[Print only results, findings and errors\: no summary or progress lines]' \
'--quiet[Print only results, findings and errors\: no summary or progress lines]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
'::path -- The project root\: the folder that holds `bot/` or `agent/`. By default the nearest such folder, from the current one up:_files' \
&& ret=0
;;
(chat)
_arguments "${_arguments_options[@]}" : \
'--dir=[The project root, as PATH\: the folder that holds \`bot/\` or \`agent/\`]:PATH:_files' \
'--url=[The agent'\''s URL (else AGENT_SDK_HOST, else the local dev.json'\''s server)]:URL:_default' \
'--token=[The bearer token (else AGENT_SDK_TOKEN, else the local dev.json). Never printed]:TOKEN:_default' \
'-m+[Send this one message and exit]:TEXT:_default' \
'--message=[Send this one message and exit]:TEXT:_default' \
'--session=[Continue this session (one chat started here\: its continuation token is kept in \`.agent-sdk/chat.json\`)]:ID:_default' \
'--hooks-for=[How long to wait for a turn'\''s hooks to finish before the reply is left at that]:DURATION:_default' \
'--color=[When to use colour\: \`auto\` uses it on a terminal, never with \`NO_COLOR\` set, and even in a pipe with \`FORCE_COLOR\` or \`CLICOLOR_FORCE\` set (not \`0\`)]:COLOR:(auto always never)' \
'--json[Print each turn'\''s events (NDJSON envelopes) instead of the reply]' \
'--insecure[Allow sending the token over plain HTTP to a host that is not loopback]' \
'-q[Print only results, findings and errors\: no summary or progress lines]' \
'--quiet[Print only results, findings and errors\: no summary or progress lines]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
'::path -- The project root\: the folder that holds `bot/` or `agent/`. By default the nearest such folder, from the current one up:_files' \
&& ret=0
;;
(sdk)
_arguments "${_arguments_options[@]}" : \
'--dir=[The project root, as PATH\: the folder that holds \`bot/\` or \`agent/\`]:PATH:_files' \
'--color=[When to use colour\: \`auto\` uses it on a terminal, never with \`NO_COLOR\` set, and even in a pipe with \`FORCE_COLOR\` or \`CLICOLOR_FORCE\` set (not \`0\`)]:COLOR:(auto always never)' \
'--update-package-json[Add the SDK packages to the dependencies of the project'\''s \`package.json\` when it does not name them (without it, sdk only says what to add)]' \
'--force[Take over what agent-sdk did not write where a package goes (a package without its stamp, in \`vendor/agent-sdk/\` or \`node_modules/\`)\: a folder gets the SDK'\''s files, a link is replaced by a copy. Without it sdk refuses, and writes nothing. Nothing is ever written through a link out of the project]' \
'-q[Print only results, findings and errors\: no summary or progress lines]' \
'--quiet[Print only results, findings and errors\: no summary or progress lines]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
'::path -- The project root\: the folder that holds `bot/` or `agent/`. By default the nearest such folder, from the current one up:_files' \
&& ret=0
;;
(init)
_arguments "${_arguments_options[@]}" : \
'--layout=[The source folder\: \`bot\` (the BDK layout) or \`agent\` (the Agent SDK layout)]:LAYOUT:((bot\:"\`bot/\`\: the BDK layout"
agent\:"\`agent/\`\: the Agent SDK layout"))' \
'--name=[The agent'\''s name (\`package.json\`'\''s \`name\`); by default the folder'\''s name]:NAME:_default' \
'--sdk=[The SDK package the hooks import from; by default the layout'\''s\: \`@cursor/bdk\` for \`bot\`, \`@grok/agent-sdk\` for \`agent\`]:PACKAGE:(@cursor/bdk @grok/agent-sdk @cursor/july)' \
'--color=[When to use colour\: \`auto\` uses it on a terminal, never with \`NO_COLOR\` set, and even in a pipe with \`FORCE_COLOR\` or \`CLICOLOR_FORCE\` set (not \`0\`)]:COLOR:(auto always never)' \
'--force[Overwrite the scaffold'\''s files where they exist, and take over the SDK packages'\'' folders where agent-sdk did not write them (as \`sdk --force\`). Nothing is ever written through a link that leads out of the folder]' \
'--update-package-json[Add the scripts and dependencies the scaffold needs to an existing \`package.json\` (without it, init only says what to add)]' \
'-q[Print only results, findings and errors\: no summary or progress lines]' \
'--quiet[Print only results, findings and errors\: no summary or progress lines]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
'::dir -- The project folder (made when missing):_files' \
&& ret=0
;;
(completions)
_arguments "${_arguments_options[@]}" : \
'--color=[When to use colour\: \`auto\` uses it on a terminal, never with \`NO_COLOR\` set, and even in a pipe with \`FORCE_COLOR\` or \`CLICOLOR_FORCE\` set (not \`0\`)]:COLOR:(auto always never)' \
'-q[Print only results, findings and errors\: no summary or progress lines]' \
'--quiet[Print only results, findings and errors\: no summary or progress lines]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
':shell -- The shell to complete for:(bash elvish fish nushell powershell zsh)' \
&& ret=0
;;
(lsp)
_arguments "${_arguments_options[@]}" : \
'--color=[When to use colour\: \`auto\` uses it on a terminal, never with \`NO_COLOR\` set, and even in a pipe with \`FORCE_COLOR\` or \`CLICOLOR_FORCE\` set (not \`0\`)]:COLOR:(auto always never)' \
'--stdio[Speak over stdin and stdout (the only way; accepted because editors pass it)]' \
'-q[Print only results, findings and errors\: no summary or progress lines]' \
'--quiet[Print only results, findings and errors\: no summary or progress lines]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
&& ret=0
;;
(help)
_arguments "${_arguments_options[@]}" : \
'--color=[When to use colour\: \`auto\` uses it on a terminal, never with \`NO_COLOR\` set, and even in a pipe with \`FORCE_COLOR\` or \`CLICOLOR_FORCE\` set (not \`0\`)]:COLOR:(auto always never)' \
'()--all[Print every command'\''s help, one after another]' \
'--json[Print the arguments and flags as JSON\: the command'\''s, or with no command the program'\''s, with every command'\''s]' \
'-q[Print only results, findings and errors\: no summary or progress lines]' \
'--quiet[Print only results, findings and errors\: no summary or progress lines]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
'::command -- The command whose help to print (none\: the index):(validate info run dev test logs chat sdk init completions lsp help)' \
&& ret=0
;;
        esac
    ;;
esac
}

(( $+functions[_agent-sdk_commands] )) ||
_agent-sdk_commands() {
    local commands; commands=(
'validate:Find every hook and check it statically; exit 1 if any has an error' \
'info:Describe the project\: its agent and the hooks that would load' \
'run:Run one local turn\: record its events and fire the hooks for real in Node.js' \
'dev:Serve the agent locally over HTTP\: many sessions, many turns, hooks as in \`run\`' \
'test:Run the hooks'\'' tests (\`*.test.*\`, \`*.spec.*\` under \`bot/\` or \`agent/\`) with Node'\''s test runner, loading the project'\''s code exactly as \`run\` does' \
'logs:Tail the serve log of a hosted agent or a local \`agent-sdk dev\`' \
'chat:Talk to the agent a local \`agent-sdk dev\` (or a hosted agent) serves' \
'sdk:Write the SDK packages into \`vendor/agent-sdk/\`, with their TypeScript declarations' \
'init:Create a working agent project\: hooks, their test, tsconfig and the SDK packages' \
'completions:Print a shell completion script to stdout' \
'lsp:Serve the Language Server Protocol over stdio, for editors' \
'help:Print the command index, a command'\''s help, every command'\''s, or a command as JSON' \
    )
    _describe -t commands 'agent-sdk commands' commands "$@"
}
(( $+functions[_agent-sdk__subcmd__chat_commands] )) ||
_agent-sdk__subcmd__chat_commands() {
    local commands; commands=()
    _describe -t commands 'agent-sdk chat commands' commands "$@"
}
(( $+functions[_agent-sdk__subcmd__completions_commands] )) ||
_agent-sdk__subcmd__completions_commands() {
    local commands; commands=()
    _describe -t commands 'agent-sdk completions commands' commands "$@"
}
(( $+functions[_agent-sdk__subcmd__dev_commands] )) ||
_agent-sdk__subcmd__dev_commands() {
    local commands; commands=()
    _describe -t commands 'agent-sdk dev commands' commands "$@"
}
(( $+functions[_agent-sdk__subcmd__help_commands] )) ||
_agent-sdk__subcmd__help_commands() {
    local commands; commands=()
    _describe -t commands 'agent-sdk help commands' commands "$@"
}
(( $+functions[_agent-sdk__subcmd__info_commands] )) ||
_agent-sdk__subcmd__info_commands() {
    local commands; commands=()
    _describe -t commands 'agent-sdk info commands' commands "$@"
}
(( $+functions[_agent-sdk__subcmd__init_commands] )) ||
_agent-sdk__subcmd__init_commands() {
    local commands; commands=()
    _describe -t commands 'agent-sdk init commands' commands "$@"
}
(( $+functions[_agent-sdk__subcmd__logs_commands] )) ||
_agent-sdk__subcmd__logs_commands() {
    local commands; commands=()
    _describe -t commands 'agent-sdk logs commands' commands "$@"
}
(( $+functions[_agent-sdk__subcmd__lsp_commands] )) ||
_agent-sdk__subcmd__lsp_commands() {
    local commands; commands=()
    _describe -t commands 'agent-sdk lsp commands' commands "$@"
}
(( $+functions[_agent-sdk__subcmd__run_commands] )) ||
_agent-sdk__subcmd__run_commands() {
    local commands; commands=()
    _describe -t commands 'agent-sdk run commands' commands "$@"
}
(( $+functions[_agent-sdk__subcmd__sdk_commands] )) ||
_agent-sdk__subcmd__sdk_commands() {
    local commands; commands=()
    _describe -t commands 'agent-sdk sdk commands' commands "$@"
}
(( $+functions[_agent-sdk__subcmd__test_commands] )) ||
_agent-sdk__subcmd__test_commands() {
    local commands; commands=()
    _describe -t commands 'agent-sdk test commands' commands "$@"
}
(( $+functions[_agent-sdk__subcmd__validate_commands] )) ||
_agent-sdk__subcmd__validate_commands() {
    local commands; commands=()
    _describe -t commands 'agent-sdk validate commands' commands "$@"
}

if [ "$funcstack[1]" = "_agent-sdk" ]; then
    _agent-sdk "$@"
else
    compdef _agent-sdk agent-sdk
fi
