import { defineConfig } from "drizzle-kit";

// Migrations are generated here and committed. The app applies them itself at start-up
// (db/migrate.ts); never point drizzle-kit at a PGlite folder the app holds open.
export default defineConfig({
  dialect: "postgresql",
  schema: "./db/schema/index.ts",
  out: "./db/migrations",
});
