-- hoglake catalog schema, version 2: an assertion for pipelined commits.
--
-- A commit sends its writes and its COMMIT in one round trip. Statements in
-- that batch check what must still hold through hog_assert: a failed
-- assertion aborts the transaction before its COMMIT runs, so nothing is
-- written, and its SQLSTATE (HLA01, a class of its own) tells the server
-- which answer to give.
CREATE FUNCTION hog_assert(ok boolean, message text)
RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
    IF ok IS NOT TRUE THEN
        RAISE EXCEPTION USING ERRCODE = 'HLA01', MESSAGE = message;
    END IF;
    RETURN true;
END
$$;
