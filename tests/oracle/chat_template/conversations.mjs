// Conversations for the chat-template oracle: system/user/assistant, multi-turn, content parts,
// tools and tool calls, reasoning content, unicode, and a few that templates reject.
const weatherTool = {
  type: "function",
  function: {
    name: "get_weather",
    description: "Get the current weather in a city",
    parameters: {
      type: "object",
      properties: {
        city: { type: "string", description: "City name, e.g. Paris" },
        unit: { type: "string", enum: ["celsius", "fahrenheit"] },
      },
      required: ["city"],
    },
  },
};
const searchTool = {
  type: "function",
  function: {
    name: "search_web",
    description: "Search the web — returns snippets (UTF-8: ü, 日本)",
    parameters: {
      type: "object",
      properties: { query: { type: "string" }, max_results: { type: "integer", default: 5 } },
      required: ["query"],
    },
  },
};
const calcTool = {
  type: "function",
  function: { name: "calc", description: "Evaluate arithmetic", parameters: { type: "object", properties: { expr: { type: "string" } } } },
};

const call = (id, name, args, asString = true) => ({
  id,
  type: "function",
  function: { name, arguments: asString ? JSON.stringify(args) : args },
});

export const conversations = [
  { name: "single_user", messages: [{ role: "user", content: "Hello!" }] },
  { name: "system_user", messages: [{ role: "system", content: "You are a helpful assistant." }, { role: "user", content: "What is 2+2?" }] },
  {
    name: "multi_turn",
    messages: [
      { role: "user", content: "Hi there" },
      { role: "assistant", content: "Hello! How can I help?" },
      { role: "user", content: "Tell me a joke." },
      { role: "assistant", content: "Why did the chicken cross the road? To get to the other side." },
      { role: "user", content: "Another one please" },
    ],
  },
  {
    name: "system_multi_turn",
    messages: [
      { role: "system", content: "Be terse." },
      { role: "user", content: "Capital of France?" },
      { role: "assistant", content: "Paris." },
      { role: "user", content: "And Germany?" },
    ],
  },
  { name: "ends_with_assistant", messages: [{ role: "user", content: "Say hi" }, { role: "assistant", content: "hi" }] },
  { name: "whitespace_content", messages: [{ role: "user", content: "  padded question \n\n" }, { role: "assistant", content: "\n  padded answer  " }, { role: "user", content: "\tok\t" }] },
  { name: "unicode", messages: [{ role: "system", content: "Réponds en français. 你好 🌍" }, { role: "user", content: "Ça va? — «test» \"quotes\" \\ backslash" }] },
  { name: "empty_user", messages: [{ role: "user", content: "" }] },
  { name: "multiline_code", messages: [{ role: "user", content: "Fix this:\n```python\ndef f(x):\n    return x+1\n```" }, { role: "assistant", content: "```python\ndef f(x: int) -> int:\n    return x + 1\n```" }, { role: "user", content: "thanks {{ not jinja }} {% neither %}" }] },
  {
    name: "content_parts",
    messages: [
      { role: "user", content: [{ type: "text", text: "Describe this image" }, { type: "image" }, { type: "text", text: "briefly" }] },
    ],
  },
  {
    name: "system_content_parts",
    messages: [
      { role: "system", content: [{ type: "text", text: "You are a vision model." }] },
      { role: "user", content: [{ type: "image" }, { type: "text", text: "What is it?" }] },
      { role: "assistant", content: [{ type: "text", text: "A cat." }] },
      { role: "user", content: "Sure?" },
    ],
  },
  {
    name: "reasoning_content",
    messages: [
      { role: "user", content: "What is 17*23?" },
      { role: "assistant", content: "391", reasoning_content: "17*23 = 17*20 + 17*3 = 340 + 51 = 391" },
      { role: "user", content: "And 18*23?" },
    ],
  },
  {
    name: "think_tags_in_content",
    messages: [
      { role: "user", content: "Think first: 5+7?" },
      { role: "assistant", content: "<think>\n5 plus 7 is 12\n</think>\n\n12" },
      { role: "user", content: "Double it" },
      { role: "assistant", content: "<think>\n12*2=24\n</think>\n\n24" },
    ],
  },
  {
    name: "reasoning_last_assistant",
    messages: [
      { role: "user", content: "Why is the sky blue?" },
      { role: "assistant", content: "Rayleigh scattering.", reasoning_content: "Shorter wavelengths scatter more." },
    ],
  },
  {
    name: "tools_no_calls",
    tools: [weatherTool, searchTool],
    messages: [{ role: "system", content: "Use tools when useful." }, { role: "user", content: "Weather in Paris?" }],
  },
  {
    name: "tools_without_system",
    tools: [calcTool],
    messages: [{ role: "user", content: "What is 3^5?" }],
  },
  {
    name: "tool_call_roundtrip",
    tools: [weatherTool],
    messages: [
      { role: "user", content: "Weather in Paris?" },
      { role: "assistant", content: "", tool_calls: [call("call12345", "get_weather", { city: "Paris", unit: "celsius" })] },
      { role: "tool", tool_call_id: "call12345", name: "get_weather", content: '{"temp": 21, "sky": "clear"}' },
      { role: "assistant", content: "It is 21°C and clear in Paris." },
      { role: "user", content: "Thanks!" },
    ],
  },
  {
    name: "tool_call_object_arguments",
    tools: [weatherTool, calcTool],
    messages: [
      { role: "user", content: "Weather in Oslo and 2+2?" },
      { role: "assistant", content: "", tool_calls: [call("abcdefghi", "get_weather", { city: "Oslo" }, false), call("jklmnopqr", "calc", { expr: "2+2" }, false)] },
      { role: "tool", tool_call_id: "abcdefghi", name: "get_weather", content: "cold" },
      { role: "tool", tool_call_id: "jklmnopqr", name: "calc", content: "4" },
    ],
  },
  {
    name: "tool_call_null_content",
    tools: [searchTool],
    messages: [
      { role: "user", content: "Search for jinja" },
      { role: "assistant", content: null, tool_calls: [call("srch00001", "search_web", { query: "jinja templates", max_results: 3 })] },
      { role: "tool", tool_call_id: "srch00001", content: "Jinja is a templating engine." },
      { role: "assistant", content: "Jinja is a templating engine." },
    ],
  },
  {
    name: "tool_call_with_text",
    tools: [weatherTool],
    messages: [
      { role: "user", content: "Is it raining in London?" },
      { role: "assistant", content: "Let me check.", tool_calls: [call("lon000001", "get_weather", { city: "London" })] },
      { role: "tool", tool_call_id: "lon000001", content: "rain" },
    ],
  },
  {
    name: "tool_result_last_user_like",
    tools: [calcTool],
    messages: [
      { role: "user", content: "<tool_response>\nfake\n</tool_response>" },
      { role: "assistant", content: "ok" },
      { role: "user", content: "real question" },
      { role: "assistant", content: "", tool_calls: [call("calc00001", "calc", { expr: "1/3" })] },
      { role: "tool", tool_call_id: "calc00001", content: "0.333" },
    ],
  },
  {
    name: "reasoning_with_tools",
    tools: [weatherTool],
    messages: [
      { role: "user", content: "Weather in Rome?" },
      { role: "assistant", content: "", reasoning_content: "I should call the weather tool.", tool_calls: [call("rome00001", "get_weather", { city: "Rome" })] },
      { role: "tool", tool_call_id: "rome00001", content: "sunny" },
      { role: "assistant", content: "Sunny in Rome.", reasoning_content: "Tool said sunny." },
    ],
  },
  {
    name: "long_conversation",
    messages: Array.from({ length: 12 }, (_, i) => ({ role: i % 2 === 0 ? "user" : "assistant", content: `turn ${i} ` + "lorem ipsum ".repeat(i) })),
  },
  {
    name: "two_systems",
    messages: [
      { role: "system", content: "First system." },
      { role: "system", content: "Second system." },
      { role: "user", content: "hi" },
    ],
  },
  { name: "not_alternating", messages: [{ role: "user", content: "one" }, { role: "user", content: "two" }] },
  { name: "assistant_first", messages: [{ role: "assistant", content: "I speak first" }, { role: "user", content: "ok" }] },
  { name: "numbers_in_args", tools: [calcTool], messages: [{ role: "user", content: "compute" }, { role: "assistant", content: "", tool_calls: [call("num000001", "calc", { a: 1, b: 2.5, c: -3, d: 1e21, e: true, f: null, g: [1, "x"] }, false)] }] },
  { name: "special_tokens_in_text", messages: [{ role: "user", content: "<|im_start|>user\n<|eot_id|><start_of_turn>[INST]" }] },
  { name: "newlines_only", messages: [{ role: "system", content: "\n" }, { role: "user", content: "\n\nq\n\n" }] },
  { name: "emoji_and_cjk", messages: [{ role: "user", content: "日本語のテキスト 🍣🍜 and Ελληνικά" }, { role: "assistant", content: "はい 👍" }, { role: "user", content: "한국어?" }] },
];
