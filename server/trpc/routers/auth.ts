import { SignUpInput } from "@/lib/schemas/auth";
import { signUp } from "../../services/auth/sign-up";
import { publicProcedure, router } from "../init";

export const authRouter = router({
  signUp: publicProcedure.input(SignUpInput).mutation(async ({ ctx, input }) => {
    const r = await signUp({ ctx: ctx.svc, input });
    return { createdWorkspace: r.createdWorkspace };
  }),
});
