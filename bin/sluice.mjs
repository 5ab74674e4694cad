#!/usr/bin/env node
// The `sluice` CLI. Its sources are TypeScript (bin/cli) sharing lib/ with the app; tsx loads them.
import { tsImport } from "tsx/esm/api";

const { main } = await tsImport("./cli/main.ts", import.meta.url);
process.exitCode = await main(process.argv.slice(2));
