// A debugger's client, as VS Code or Chrome's DevTools attach: connects to the inspector URL
// given, waits a moment (a person at a paused program), tells Node to run
// (Runtime.runIfWaitingForDebugger, what a debugger sends on attach to --inspect-brk), and
// leaves.
const [url, waitMs = "1000"] = process.argv.slice(2);
const socket = new WebSocket(url);
let released = false;
socket.addEventListener("open", () => {
  setTimeout(() => {
    socket.send(JSON.stringify({ id: 1, method: "Runtime.runIfWaitingForDebugger" }));
    released = true;
    setTimeout(() => socket.close(), 200);
  }, Number(waitMs));
});
socket.addEventListener("error", (event) => {
  // Once the program runs it may end, and its end closes the connection under us: done.
  if (released) process.exit(0);
  console.error(`could not attach: ${event.message ?? event}`);
  process.exit(1);
});
