-- Drives `refscore serve` from a real headless Neovim (>= 0.10): waits for the summary and the
-- weak-token diagnostics, asks for a hover, collects `refscore/tokenScores`, writes JSON.
-- The heat-map handler is the Lua block of docs/editor.md (REFSCORE_DOC), loaded as written there.
-- Environment: REFSCORE_CMD (JSON list), REFSCORE_ROOT, REFSCORE_FILE, REFSCORE_OUT, REFSCORE_WAIT_MS,
-- REFSCORE_DOC.
local cmd = vim.json.decode(os.getenv("REFSCORE_CMD"))
local root = os.getenv("REFSCORE_ROOT")
local out_path = os.getenv("REFSCORE_OUT")
local wait_ms = tonumber(os.getenv("REFSCORE_WAIT_MS") or "120000")
local result = { errors = {} }

local write_and_quit = dofile(vim.fs.dirname(debug.getinfo(1, "S").source:sub(2)) .. "/nvim_finish.lua")
local function finish() write_and_quit(result, out_path) end

local ok, err = pcall(function()
  vim.cmd.edit(vim.fn.fnameescape(os.getenv("REFSCORE_FILE")))
  local buf = vim.api.nvim_get_current_buf()
  vim.bo[buf].filetype = "python"
  local token_payloads = 0
  local doc = table.concat(vim.fn.readfile(os.getenv("REFSCORE_DOC")), "\n")
  local block = doc:match("```lua\n(%-%- refscore heat map.-)```")
  assert(block, "heat-map block not found in docs/editor.md")
  local heat = assert(load(block, "refscore_heat"))()
  local client_id = vim.lsp.start({
    name = "refscore",
    cmd = cmd,
    root_dir = root,
    settings = { refscore = { metrics = { "codebleu", "codebertscore" },
                              weakTokens = { threshold = 0.9, maxCount = 3 } } },
    init_options = { tokenScores = true },
    handlers = {
      ["refscore/tokenScores"] = function(_, params, ctx)
        if params and params.tokens and #params.tokens > 0 then token_payloads = token_payloads + 1 end
        heat(_, params, ctx)
      end,
    },
  }, { bufnr = buf })
  result.client_id = client_id

  local function by_code(code)
    local found = {}
    for _, d in ipairs(vim.diagnostic.get(buf)) do
      if d.code == code then table.insert(found, d) end
    end
    return found
  end

  result.ready = vim.wait(wait_ms, function()
    local summary = by_code("refscore.summary")[1]
    return summary ~= nil and summary.message:find("CodeBERTScore P", 1, true) ~= nil
  end, 100)
  local summary = by_code("refscore.summary")[1]
  result.summary = summary and { message = summary.message, lnum = summary.lnum, severity = summary.severity,
                                 source = summary.source } or vim.NIL
  result.weak = {}
  for _, d in ipairs(by_code("refscore.weak-token")) do
    local data = (d.user_data and d.user_data.lsp and d.user_data.lsp.data) or {}
    table.insert(result.weak, { lnum = d.lnum, col = d.col, message = d.message, similarity = data.similarity })
  end

  -- a token below the summary line: `return` on the third line
  local line = vim.api.nvim_buf_get_lines(buf, 2, 3, false)[1] or ""
  local col = (line:find("return", 1, true) or 1)
  local responses = vim.lsp.buf_request_sync(buf, "textDocument/hover", {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    position = { line = 2, character = col },
  }, 20000) or {}
  for _, response in pairs(responses) do
    if response.result and response.result.contents then
      result.hover = response.result.contents.value or vim.inspect(response.result.contents)
    end
    if response.err then table.insert(result.errors, vim.inspect(response.err)) end
  end
  vim.wait(10000, function() return token_payloads > 0 end, 50)
  result.token_payloads = token_payloads
  local ns = vim.api.nvim_get_namespaces()["refscore-heat"]
  result.heat_marks = ns and #vim.api.nvim_buf_get_extmarks(buf, ns, 0, -1, {}) or 0
end)
if not ok then table.insert(result.errors, tostring(err)) end
finish()
