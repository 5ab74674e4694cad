export * from "./users";
export * from "./workspaces";
export * from "./api-tokens";
export * from "./audit";
export * from "./workflows";
export * from "./runs";
export * from "./executor";
export * from "./outbox";
