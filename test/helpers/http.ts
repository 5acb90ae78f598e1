/** A response read once: status, text, JSON when it parses, headers. */
export type Answer = { status: number; json: any; text: string; headers: Headers };

export async function answer(res: Response): Promise<Answer> {
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, json, text, headers: res.headers };
}
