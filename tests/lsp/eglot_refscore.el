;;; eglot_refscore.el --- Emacs eglot drives `refscore serve' (tests/lsp/test_lsp_eglot.py)  -*- lexical-binding: t -*-
;; Opens REFSCORE_FILE in REFSCORE_ROOT with eglot and the server command REFSCORE_CMD (JSON),
;; waits for the summary diagnostic, asks for a hover on line 1, shuts the server down and writes
;; what it saw as JSON to REFSCORE_OUT.
(require 'eglot)
(require 'flymake)
(require 'json)
(require 'seq)

(let* ((root (file-name-as-directory (getenv "REFSCORE_ROOT")))
       (file (getenv "REFSCORE_FILE"))
       (out (getenv "REFSCORE_OUT"))
       (command (append (json-read-from-string (getenv "REFSCORE_CMD")) nil))
       (deadline (+ (float-time) (string-to-number (or (getenv "REFSCORE_WAIT_S") "60"))))
       (published '())
       (result (list (cons 'errors '()))))
  (advice-add 'eglot-handle-notification :before
              (lambda (_server method &rest params)
                (when (eq method 'textDocument/publishDiagnostics)
                  (push (plist-get params :diagnostics) published))))
  (setq project-find-functions (list (lambda (_dir) (cons 'transient root))))
  (condition-case err
      (progn
        (find-file file)
        (python-mode)
        (eglot '(python-mode) (project-current) 'eglot-lsp-server command "python")
        (while (and (not (eglot-current-server)) (< (float-time) deadline))
          (accept-process-output nil 0.1))
        (flymake-start)
        (let (summary)
          (while (and (not summary) (< (float-time) deadline))
            (accept-process-output nil 0.2)
            (setq summary (seq-find (lambda (d) (equal (plist-get d :code) "refscore.summary"))
                                    (append (car published) nil))))
          (push (cons 'summary (and summary (list (cons 'message (plist-get summary :message))
                                                  (cons 'severity (plist-get summary :severity))
                                                  (cons 'line (plist-get (plist-get (plist-get summary :range) :start) :line)))))
                result))
        ;; what flymake shows in the buffer, once it has had the report
        (let ((shown '()))
          (while (and (not shown) (< (float-time) deadline))
            (accept-process-output nil 0.2)
            (setq shown (mapcar #'flymake-diagnostic-text (flymake-diagnostics))))
          (push (cons 'flymake (vconcat shown)) result)
          ;; the code flymake underlines for the summary: its range is zero-width at the line's end,
          ;; which eglot widens to the line's last character
          (let ((mark (seq-find (lambda (d) (string-match-p "refscore\\.summary" (flymake-diagnostic-text d)))
                                (flymake-diagnostics))))
            (push (cons 'summary_underlined
                        (and mark (buffer-substring-no-properties (flymake-diagnostic-beg mark)
                                                                  (flymake-diagnostic-end mark))))
                  result)))
        (goto-char (point-min))
        (forward-char 1)
        (let* ((hover (jsonrpc-request (eglot--current-server-or-lose) :textDocument/hover
                                       (eglot--TextDocumentPositionParams)))
               (contents (plist-get hover :contents)))
          (push (cons 'hover_kind (plist-get contents :kind)) result)
          (push (cons 'hover_value (plist-get contents :value)) result)
          (push (cons 'hover_shown (eglot--hover-info contents)) result))
        (eglot-shutdown (eglot-current-server)))
    (error (push (cons 'errors (vector (format "%S" err))) result)))
  (with-temp-file out (insert (json-encode result)))
  (kill-emacs 0))
