import { prepareEngine } from "./engines";

// The embedded executor scheduling parallel steps as the real Inngest server does (replaced
// pending sets, racing discoveries, immediate execution reset): the corpus must pass here too.
const prepared = prepareEngine("embedded", undefined, {
  parallelism: "inngest",
  checkpointing: false,
  concurrency: 64,
});
const { defineConformance } = await import("./scenarios");
defineConformance(prepared);
