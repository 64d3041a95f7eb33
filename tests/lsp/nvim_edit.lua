-- Drives `refscore serve` (CodeBLEU only) from a real headless Neovim on a file whose path has
-- spaces (Neovim sends it percent-encoded): waits for the summary, shrinks the buffer with two
-- quick edits (they wait for the 10 s debounce), asks for code lenses and a hover meanwhile,
-- then waits for the new version's summary. Writes JSON to REFSCORE_OUT.
-- Environment: REFSCORE_CMD (JSON list), REFSCORE_ROOT, REFSCORE_FILE, REFSCORE_OUT.
local cmd = vim.json.decode(os.getenv("REFSCORE_CMD"))
local result = { errors = {} }

local write_and_quit = dofile(vim.fs.dirname(debug.getinfo(1, "S").source:sub(2)) .. "/nvim_finish.lua")
local function finish() write_and_quit(result, os.getenv("REFSCORE_OUT")) end

local function summary(buf)
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    if d.code == "refscore.summary" then return d end
  end
end

local function version_of(d)
  local data = d and d.user_data and d.user_data.lsp and d.user_data.lsp.data
  return data and data.version
end

local ok, err = pcall(function()
  vim.cmd.edit(vim.fn.fnameescape(os.getenv("REFSCORE_FILE")))
  local buf = vim.api.nvim_get_current_buf()
  vim.bo[buf].filetype = "python"
  vim.lsp.start({
    name = "refscore",
    cmd = cmd,
    root_dir = os.getenv("REFSCORE_ROOT"),
    settings = { refscore = { metrics = { "codebleu" }, debounceMs = 10000 } },
  }, { bufnr = buf })
  result.uri = vim.uri_from_bufnr(buf)
  result.ready = vim.wait(60000, function() return summary(buf) ~= nil end, 50)
  local first = summary(buf)
  result.first_message = first and first.message or vim.NIL
  result.first_version = version_of(first) or vim.NIL

  vim.api.nvim_buf_set_lines(buf, 2, -1, false, {})  -- two quick edits, moments after the open was
  vim.api.nvim_buf_set_lines(buf, 1, -1, false, {})  -- scored: both wait for the 10 s debounce
  result.line_count = vim.api.nvim_buf_line_count(buf)
  local params = { textDocument = { uri = result.uri } }
  result.lens_lines = {}
  for _, response in pairs(vim.lsp.buf_request_sync(buf, "textDocument/codeLens", params, 10000) or {}) do
    if response.err then table.insert(result.errors, vim.inspect(response.err)) end
    for _, lens in ipairs(response.result or {}) do table.insert(result.lens_lines, lens.range.start.line) end
  end
  params.position = { line = 0, character = 1 }
  for _, response in pairs(vim.lsp.buf_request_sync(buf, "textDocument/hover", params, 10000) or {}) do
    if response.err then table.insert(result.errors, vim.inspect(response.err)) end
    local range = response.result and response.result.range
    if range then result.hover_end = { range["end"].line, range["end"].character } end
  end
  result.stale_version = version_of(summary(buf)) or vim.NIL

  result.rescored = vim.wait(60000, function()
    local d = summary(buf)
    return d ~= nil and version_of(d) ~= result.first_version
  end, 50)
  result.final_version = version_of(summary(buf)) or vim.NIL
  result.final_line = vim.api.nvim_buf_get_lines(buf, 0, 1, false)[1]
end)
if not ok then table.insert(result.errors, tostring(err)) end
finish()
