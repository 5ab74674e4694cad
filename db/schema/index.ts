export * from "./users";
export * from "./workspaces";
export * from "./api-tokens";
export * from "./audit";
export * from "./secrets";
