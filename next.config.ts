import type { NextConfig } from "next";
// Importing env validates configuration once, at build and at start: a bad variable stops here.
import "./env";

const nextConfig: NextConfig = {
  // WASM packages must load from node_modules at runtime, not be bundled (stack-probe P4).
  serverExternalPackages: [
    "@electric-sql/pglite",
    "quickjs-emscripten",
    "quickjs-emscripten-core",
    "@jitl/quickjs-wasmfile-release-sync",
    "nodemailer",
  ],
  poweredByHeader: false,
  typedRoutes: false,
};

export default nextConfig;
