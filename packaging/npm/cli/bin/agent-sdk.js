#!/usr/bin/env node
// `agent-sdk` from npm: runs this platform's prebuilt binary (see ../launcher.js).
require("../launcher.js").launch("agent-sdk");
