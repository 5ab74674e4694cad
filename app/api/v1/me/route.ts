import { apiRoute } from "@/server/http/api";
import { getMe } from "@/server/services/me/get-me";

export const dynamic = "force-dynamic";

export const GET = apiRoute({ minRole: "viewer" }, ({ ctx }) => getMe({ ctx }));
