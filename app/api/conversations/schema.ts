export {
  conversationIdSchema,
  createConversationSchema,
  feedbackSchema,
  listConversationsSchema,
  updateConversationSchema,
} from "@/lib/conversations/schema";
