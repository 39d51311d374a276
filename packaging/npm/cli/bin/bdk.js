#!/usr/bin/env node
// `bdk` from npm: the same binary as `agent-sdk`, started under the name `bdk` (see ../launcher.js).
require("../launcher.js").launch("bdk");
