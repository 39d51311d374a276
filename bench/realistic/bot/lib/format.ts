import { format, formatDistanceToNow } from "date-fns";

export const stamp = (at: string): string => format(new Date(at), "yyyy-MM-dd HH:mm");
export const ago = (at: string): string => formatDistanceToNow(new Date(at), { addSuffix: true });
