-- Measures: memory of N Haskell threads (forkIO, GHC's threaded RTS on all cores) alive at once,
-- each blocked in threadDelay and signalling completion through its own MVar.
module Main (main) where

import Control.Concurrent (forkIO, threadDelay)
import Control.Concurrent.MVar (newEmptyMVar, putMVar, takeMVar)
import Control.Monad (forM_, replicateM, void, when)
import Data.Char (isDigit)
import Foreign.C.String (CString, withCStringLen)
import Foreign.C.Types (CInt (..), CSize (..))
import GHC.Conc (BlockReason (BlockedOnMVar), ThreadId, ThreadStatus (..), threadStatus)
import GHC.Stats (GCDetails (..), RTSStats (..), getRTSStats, getRTSStatsEnabled)
import System.Mem (performMajorGC)
import System.Posix.Signals (Handler (Catch), installHandler, sigUSR2)
import System.Environment (getArgs, lookupEnv)
import System.Exit (exitWith, ExitCode (ExitFailure))
import System.IO (hFlush, hPutStrLn, stderr, stdout)
import System.IO.Unsafe (unsafePerformIO)
import System.Posix.Types (CSsize (..))
import Text.Read (readMaybe)

-- The proof attack's switches (tasks/README.md, "Attacking the proofs"); measured runs have neither.
-- MEMRUN_TRACE_WAITS=1: each thread runs the traced body, the plain one with a `start` line just
-- before threadDelay and an `end` line after it, written to fd 1 with write(2) (through stdout's
-- Handle a thread could block on the Handle's MVar, which the proof would take for threadDelay's);
-- `ready` goes to the same fd. MEMRUN_STALL_MS=K: main stalls K ms after the last forkIO and again
-- just before `ready`. Top-level constants, so no thread's closure holds them.
{-# NOINLINE trace #-}
trace :: Bool
trace = unsafePerformIO ((== Just "1") <$> lookupEnv "MEMRUN_TRACE_WAITS")

{-# NOINLINE stallMicros #-}
stallMicros :: Int
stallMicros = unsafePerformIO (maybe 0 (* 1000) . (>>= readMaybe) <$> lookupEnv "MEMRUN_STALL_MS")

foreign import ccall unsafe "write" c_write :: CInt -> CString -> CSize -> IO CSsize

say :: String -> IO ()
say s = withCStringLen s $ \(p, len) -> void (c_write 1 p (fromIntegral len))

stall :: IO ()
stall = when (stallMicros > 0) (threadDelay stallMicros)

usage :: String -> IO a
usage msg = do
  hPutStrLn stderr msg
  hPutStrLn stderr "usage: haskell-task N [SLEEP_SECONDS]  (N >= 0; sleep default 10, may be fractional)"
  exitWith (ExitFailure 2)

maxInt :: Integer
maxInt = fromIntegral (maxBound :: Int)

parseN :: String -> IO Int
parseN s
  | not (null s), all isDigit s, n <= maxInt = pure (fromInteger n)  -- isDigit is ASCII 0-9 only
  | otherwise = usage ("N must be a non-negative integer: " ++ s)
  where n = read s :: Integer

-- threadDelay takes whole microseconds as an Int.
parseSleep :: String -> IO Int
parseSleep s = case readMaybe s :: Maybe Double of
  Just x | x >= 0, x * 1e6 <= fromIntegral maxInt -> pure (round (x * 1e6))  -- NaN fails both
  _ -> usage ("SLEEP_SECONDS must be a non-negative number: " ++ s)

main :: IO ()
main = do
  args <- getArgs
  (n, micros) <- case args of
    [a] -> (,) <$> parseN a <*> pure 10000000
    [a, b] -> (,) <$> parseN a <*> parseSleep b
    _ -> usage "wrong number of arguments"
  -- The list holds the N handles: one cons cell, one pair, one ThreadId and one MVar per task,
  -- built once.
  done <- replicateM n $ do
    mv <- newEmptyMVar
    t <-
      if trace
        then forkIO (say "start\n" >> threadDelay micros >> say "end\n" >> putMVar mv ())
        else forkIO (threadDelay micros >> putMVar mv ())
    pure (t, mv)
  stall
  forM_ done (awaitWaiting . fst)
  books <- lookupEnv "MEMRUN_BOOKS"
  when (books == Just "1") (void (installHandler sigUSR2 (Catch printBooks) Nothing))
  stall
  putStrLn ("ready " ++ show n)
  hFlush stdout
  forM_ done (takeMVar . snd)

-- The runtime's own books, for `memrun explain --books` only: with MEMRUN_BOOKS=1 (and +RTS -T,
-- which the books' GHCRTS gives), a SIGUSR2 handler is installed once every thread waits, just
-- before `ready`; memrun sends the signal at the hold, after its own snapshot. The handler runs a
-- major GC, so that the live figures are the heap at the hold rather than at whichever GC came
-- last, and prints GHC.Stats' figures to stderr as `books NAME VALUE`. Off by default: a figure's
-- run reads one environment variable once every thread waits, and installs nothing.
printBooks :: IO ()
printBooks = do
  enabled <- getRTSStatsEnabled
  if not enabled
    then hPutStrLn stderr "books: GHC.Stats is off (run with +RTS -T)"
    else do
      performMajorGC
      s <- getRTSStats
      let g = gc s
          say' name v = hPutStrLn stderr ("books " ++ name ++ " " ++ show v)
      say' "gcs" (gcs s)
      say' "major_gcs" (major_gcs s)
      say' "max_live_bytes" (max_live_bytes s)
      say' "max_large_objects_bytes" (max_large_objects_bytes s)
      say' "max_slop_bytes" (max_slop_bytes s)
      say' "max_mem_in_use_bytes" (max_mem_in_use_bytes s)
      say' "gcdetails_live_bytes" (gcdetails_live_bytes g)
      say' "gcdetails_large_objects_bytes" (gcdetails_large_objects_bytes g)
      say' "gcdetails_compact_bytes" (gcdetails_compact_bytes g)
      say' "gcdetails_slop_bytes" (gcdetails_slop_bytes g)
      say' "gcdetails_mem_in_use_bytes" (gcdetails_mem_in_use_bytes g)
      say' "gcdetails_copied_bytes" (gcdetails_copied_bytes g)

-- `ready` once every thread is blocked in threadDelay's takeMVar, i.e. its timeout is registered;
-- no other MVar is taken before that. A counter bumped just before threadDelay is not enough: the
-- registration (an atomicModifyIORef' on the timer manager's one queue) is itself contended, and at
-- 100k threads half of them were still BlockedOnBlackHole there when such a counter reached N.
-- A finished thread counts too, so `ready` proves N waiting with the runner's rule that it comes
-- before the sleep can end (a state proof).
awaitWaiting :: ThreadId -> IO ()
awaitWaiting t = do
  s <- threadStatus t
  case s of
    ThreadBlocked BlockedOnMVar -> pure ()
    ThreadFinished -> pure ()  -- a sleep of 0, or one already over
    _ -> threadDelay 1000 >> awaitWaiting t
