import { timestamp } from "drizzle-orm/pg-core";

/** `timestamp with time zone`, returned as a Date. */
export const tstz = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });
export const createdAt = () => tstz("created_at").notNull().defaultNow();
