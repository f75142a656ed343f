"""Networks and their parts (issue 26): the one vocabulary of normalizations and initializations
(``vocabulary``) that config, code and docs share."""
