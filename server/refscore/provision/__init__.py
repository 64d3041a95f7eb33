"""Provisioning the CodeBERTScore runtime (``refscore setup``): what this interpreter can score
(``runtime``), the plan of an install (``plan``: what is downloaded, from where, how big) and the
install itself (``install``: JSON-line progress, a log, one clear failure).

The VS Code extension only runs ``refscore setup`` and shows its progress; the language server
reports ``runtime.bert_runtime()`` to its clients. Standard library only: this runs in any Python
3.10+, before torch or anything else is installed.
"""
