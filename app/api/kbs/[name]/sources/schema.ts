import { z } from "zod";
import { kbParamSchema } from "../../schema";

export const kbRoute = { params: z.object({ name: kbParamSchema }), notFound: "There is no such knowledge base." };

export const sourceRoute = {
  params: z.object({ name: kbParamSchema, id: z.string().regex(/^[\w-]{1,64}$/) }),
  notFound: "There is no such source.",
};
