{-# LANGUAGE BangPatterns, MagicHash, UnboxedTuples #-}
-- Tick workload (tasks/README.md, "Tick protocol"): N Haskell threads (forkIO, GHC's threaded RTS
-- on all cores, as Main.hs), each with its own unboxed mutable array of bytes (IOUArray Int Word8),
-- waking with threadDelay until its next absolute due time (GHC.Clock's monotonic clock), then
-- checksumming its state and incrementing every byte in place.
module Main (main) where

import Control.Concurrent (forkIO, threadDelay)
import Control.Concurrent.MVar (newEmptyMVar, putMVar, takeMVar)
import Control.Monad (forM, forM_, when)
import Data.Array.Base (unsafeRead, unsafeWrite)
import Data.Array.IO (IOUArray, newArray_)
import Data.Bits (countLeadingZeros, finiteBitSize, shiftR, (.&.))
import Data.Char (isDigit)
import Data.IORef (IORef, atomicWriteIORef, newIORef, readIORef)
import Data.Word (Word64, Word8)
import GHC.Clock (getMonotonicTimeNSec)
import GHC.Exts (Int (I#), MutableByteArray#, RealWorld, atomicReadIntArray#, fetchAddIntArray#,
                 newByteArray#, setByteArray#)
import GHC.IO (IO (IO))
import System.Environment (getArgs)
import System.Exit (ExitCode (ExitFailure), exitWith)
import System.IO (hFlush, hPutStrLn, stderr, stdout)
import Text.Read (readMaybe)

-- An array of Int counters that every thread adds to with an atomic fetch-and-add (GHC's
-- fetchAddIntArray# primop: one lock add, no allocation). base has no atomic array type of its
-- own (the primitive and atomic-primops packages wrap these same primops; only GHC's bundled
-- libraries are here), and the alternatives in base allocate on each add (atomicModifyIORef' on
-- one IORef per bucket) or serialise every thread on one lock (an MVar).
data Counters = Counters (MutableByteArray# RealWorld)

newCounters :: Int -> IO Counters
newCounters n = IO $ \s -> case newByteArray# bytes s of
  (# s1, a #) -> case setByteArray# a 0# bytes 0# s1 of
    s2 -> (# s2, Counters a #)
  where !(I# bytes) = n * (finiteBitSize (0 :: Int) `div` 8)

addCounter :: Counters -> Int -> Int -> IO ()
addCounter (Counters a) (I# i) (I# v) = IO $ \s -> case fetchAddIntArray# a i v s of
  (# s1, _ #) -> (# s1, () #)

readCounter :: Counters -> Int -> IO Int
readCounter (Counters a) (I# i) = IO $ \s -> case atomicReadIntArray# a i s of
  (# s1, v #) -> (# s1, I# v #)

-- W and E in µs since t0, set once by main with one atomicWriteIORef (a barrier), so a thread
-- that reads the window sees both.
data Window = Unset | Window !Int !Int

-- What every thread shares (one pointer in each thread's closure).
data Shared = Shared
  { t0 :: !Word64            -- getMonotonicTimeNSec at the start of main
  , period :: !Int           -- µs
  , stateBytes :: !Int
  , window :: !(IORef Window)
  , stats :: !Counters       -- 0 ready (threads past their first wake's work), 1 achieved,
                             -- 2 the sum of the last checksums (taken mod 2^32 at the end)
  , hist :: !Counters        -- the lateness histogram, 3328 buckets
  }

buckets :: Int
buckets = 3328

nowUs :: Shared -> IO Int
nowUs sh = do
  t <- getMonotonicTimeNSec
  pure (fromIntegral ((t - t0 sh) `div` 1000))

-- threadDelay takes µs from now, so the wait is for due − now from the monotonic clock (the same
-- clock as the RTS's timer manager); a wake that still comes before due waits again. Returns the
-- wake time in µs since t0.
sleepUntil :: Shared -> Int -> IO Int
sleepUntil sh due = do
  now <- nowUs sh
  if now >= due then pure now else threadDelay (due - now) >> sleepUntil sh due

-- Exact below 256 µs, then 128 buckets per power of two (tasks/README.md, "The histogram").
bucket :: Int -> Int
bucket v0
  | v < 256 = v
  | otherwise = 256 + (m - 8) * 128 + (v `shiftR` (m - 7)) - 128
  where
    v = min v0 0xFFFFFFFF
    m = finiteBitSize v - 1 - countLeadingZeros v

-- The wake's work, in one loop over the array: the sum of the bytes (mod 2^32), each byte written
-- back plus one (Word8 wraps mod 256).
work :: IOUArray Int Word8 -> Int -> IO Int
work st n = go 0 0
  where
    go :: Int -> Int -> IO Int
    go !j !acc
      | j == n = pure (acc .&. 0xFFFFFFFF)
      | otherwise = do
          b <- unsafeRead st j
          unsafeWrite st j (b + 1)
          go (j + 1) (acc + fromIntegral b)

-- Thread i: its state is an unboxed mutable array of its own (a MutableByteArray# in the GHC heap),
-- byte j = 1 + (i*31 + j) mod 251, updated in place on every wake.
task :: Shared -> Int -> Int -> IO ()
task sh i off = do
  let size = stateBytes sh
  st <- newArray_ (0, size - 1) :: IO (IOUArray Int Word8)
  forM_ [0 .. size - 1] $ \j -> unsafeWrite st j (fromIntegral (1 + (i * 31 + j) `rem` 251))
  let loop !k !lastSum = do
        let due = off + k * period sh
        win <- readIORef (window sh)
        case win of
          Window _ e | due >= e -> stop lastSum
          _ -> do
            now <- sleepUntil sh due
            let late = max 0 (now - due)
            c <- work st size
            when (k == 1) (addCounter (stats sh) 0 1)
            -- Read again: main may have set the window during the sleep.
            win' <- readIORef (window sh)
            case win' of
              Unset -> loop (k + 1) c
              Window w e -> do
                when (due >= w && due < e) $ do
                  addCounter (hist sh) (bucket late) 1
                  when (now < e) (addCounter (stats sh) 1 1)
                if now >= e then stop c else loop (k + 1) c
  loop (1 :: Int) 0
  where
    stop c = addCounter (stats sh) 2 c

usage :: String -> IO a
usage msg = do
  hPutStrLn stderr msg
  hPutStrLn stderr "usage: haskell-tick N SLEEP_SECONDS STATE_BYTES PERIOD_US  (N >= 0, SLEEP >= 0 may be fractional, STATE_BYTES >= 0, PERIOD_US >= 1)"
  exitWith (ExitFailure 2)

parseInt :: String -> Integer -> String -> IO Int
parseInt what lo s
  | not (null s), all isDigit s, n >= lo, n <= 10 ^ (12 :: Int) = pure (fromInteger n)  -- isDigit: ASCII 0-9
  | otherwise = usage (what ++ " must be an integer from " ++ show lo ++ " to 10^12: " ++ s)
  where
    n = read s :: Integer  -- up to 10^12 each: i*P and N*K stay far inside Int

parseSleep :: String -> IO Int
parseSleep s = case readMaybe s :: Maybe Double of
  Just x | x >= 0, x * 1e6 <= 1e15 -> pure (round (x * 1e6))  -- NaN fails both
  _ -> usage ("SLEEP_SECONDS must be a non-negative number: " ++ s)

main :: IO ()
main = do
  start <- getMonotonicTimeNSec
  args <- getArgs
  (n, sleepUs, size, p) <- case args of
    [a, b, c, d] ->
      (,,,) <$> parseInt "N" 0 a <*> parseSleep b <*> parseInt "STATE_BYTES" 0 c
        <*> parseInt "PERIOD_US" 1 d
    _ -> usage "wrong number of arguments"
  win <- newIORef Unset
  st <- newCounters 3
  h <- newCounters buckets
  let sh = Shared {t0 = start, period = p, stateBytes = size, window = win, stats = st, hist = h}
  -- As Main.hs: one MVar per thread, filled when it ends (the list holds the N handles).
  done <- forM [0 .. n - 1] $ \i -> do
    mv <- newEmptyMVar
    _ <- forkIO (task sh i (i * p `div` n) >> putMVar mv ())
    pure mv
  -- `ready` once every thread has done its first wake's work: polled in 1 ms steps.
  let awaitReady = do
        r <- readCounter st 0
        when (r < n) (threadDelay 1000 >> awaitReady)
  awaitReady
  tReady <- nowUs sh
  let w = (tReady `div` p + 1) * p
      k = max 0 ((tReady + sleepUs - w) `div` p)
  atomicWriteIORef win (Window w (w + k * p))
  putStrLn ("ready " ++ show n)
  hFlush stdout
  forM_ done takeMVar
  achieved <- readCounter st 1
  checksum <- readCounter st 2
  counts <- forM [0 .. buckets - 1] (readCounter h)
  putStrLn ("tick periods " ++ show k ++ " asked " ++ show (n * k) ++ " achieved " ++ show achieved
            ++ " checksum " ++ show (checksum .&. 0xFFFFFFFF))
  putStrLn ("lateness_us" ++ concat [' ' : show b ++ ':' : show c | (b, c) <- zip [0 :: Int ..] counts, c > 0])
  hFlush stdout
