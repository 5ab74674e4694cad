import { prepareEngine } from "./engines";

const prepared = prepareEngine("embedded");
const { defineConformance } = await import("./scenarios");
defineConformance(prepared);
