/**
 * Offline chat replies: kind, short, age-appropriate, and honest that the lamp cannot answer
 * open questions without the cloud. Each points the child to something the lamp can do offline.
 */
export const OFFLINE_REPLIES: readonly string[] = [
  '我在这儿呢！我们可以一起背古诗，或者检查作业，你想做哪个？',
  '这个问题我现在还回答不了，等我连上网再告诉你好吗？要不要先背一首古诗？',
  '你说得真好！想不想试试背一首诗给我听？',
  '我听到啦。如果作业写完了，可以把本子放到灯下，我帮你检查口算。',
];

export const IMAGE_REPLY = '我看到你放的本子啦。检查作业的本领我还在学，很快就能帮你看啦。';
