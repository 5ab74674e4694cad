import { z } from "zod";
import { EmitEventsBody } from "@/lib/schemas/triggers";
import { defineOperation } from "../operation";
import { JsonObject } from "./common";

export const apiIndexOp = defineOperation({
  method: "GET",
  path: "/",
  operationId: "apiIndex",
  summary: "Where the API is described",
  tag: "Meta",
  minRole: null,
  responses: {
    200: {
      description: "Links",
      schema: z.object({ name: z.string(), openapi: z.string(), docs: z.string() }),
    },
  },
});

export const openApiOp = defineOperation({
  method: "GET",
  path: "/openapi.json",
  operationId: "getOpenApi",
  summary: "This OpenAPI 3.1 document",
  tag: "Meta",
  minRole: null,
  responses: { 200: { description: "The document", schema: JsonObject } },
});

export const getMeOp = defineOperation({
  method: "GET",
  path: "/me",
  operationId: "getMe",
  summary: "The token's user and workspace",
  tag: "Meta",
  minRole: "viewer",
  responses: { 200: { description: "Who the token acts as", schema: JsonObject } },
});

export const emitEventsOp = defineOperation({
  method: "POST",
  path: "/events",
  operationId: "emitEvents",
  summary: "Emit events",
  description:
    "`{ name, data, id? }` or an array of up to 100; matching event triggers start runs. System names (`run.completed`…) are refused. An `id` makes emitting idempotent for 24 h.",
  tag: "Events",
  minRole: "editor",
  body: EmitEventsBody,
  responses: {
    202: { description: "Accepted", schema: z.object({ ids: z.array(z.string()) }) },
  },
  errors: [429],
});
