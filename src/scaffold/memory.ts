// Journals every turn to the deployment's files, so later sessions can read what was said.
// Delete this file to opt out.
import { memoryHook } from "{sdk}/memory";

export default memoryHook();
