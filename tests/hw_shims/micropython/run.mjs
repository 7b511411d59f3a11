// Runs check.py under the MicroPython WebAssembly port (node), with firmware_bridge/protocol.py,
// firmware_bridge/main.py and the stub machine/neopixel modules beside it.
// Usage: node run.mjs /path/to/micropython.mjs FILE...
import fs from "fs";
import path from "path";

const [mjs, ...files] = process.argv.slice(2);
const { loadMicroPython } = await import(mjs);
const mp = await loadMicroPython({
  stdout: (line) => console.log(line),
  stderr: (line) => console.error(line),
});
for (const f of files) mp.FS.writeFile("/" + path.basename(f), fs.readFileSync(f));
try {
  mp.runPython("import sys\nsys.path.insert(0, '/')\nimport check\ncheck.run()\n");
} catch (err) {
  console.error(String(err));
  process.exit(1);
}
