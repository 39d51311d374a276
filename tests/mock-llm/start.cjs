// Starts @dwmkerr/mock-llm, a third-party OpenAI-compatible mock server, on a free loopback
// port with the rules of the YAML file named first, and prints `listening <port>` once it
// accepts connections. The package's own `mock-llm` binary listens on a fixed port; the
// tests and the benchmark run many servers at once, so this starts its server the same way
// (its `createServer` and `loadConfig`) on port 0.
const { createServer } = require("@dwmkerr/mock-llm/dist/server.js");
const { loadConfig } = require("@dwmkerr/mock-llm/dist/config.js");

const config = loadConfig(process.argv[2]);
const app = createServer(config, "127.0.0.1", 0);
const server = app.listen(0, "127.0.0.1", () => {
  console.log(`listening ${server.address().port}`);
});
server.on("error", (error) => {
  console.error(error);
  process.exit(1);
});
