-- Shared by the Neovim test scripts: write the result as JSON, stop the LSP clients, quit.
return function(result, out_path)
  local fh = assert(io.open(out_path, "w"))
  fh:write(vim.json.encode(result))
  fh:close()
  for _, client in ipairs(vim.lsp.get_clients()) do client:stop(true) end
  vim.wait(3000, function() return #vim.lsp.get_clients() == 0 end, 50)
  vim.cmd("qa!")
end
