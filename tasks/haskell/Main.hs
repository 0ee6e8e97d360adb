-- Measures: memory of N Haskell threads (forkIO, GHC's threaded RTS on all cores) alive at once,
-- each blocked in threadDelay and signalling completion through its own MVar.
module Main (main) where

import Control.Concurrent (forkIO, threadDelay)
import Control.Concurrent.MVar (newEmptyMVar, putMVar, takeMVar)
import Control.Monad (forM_, replicateM)
import Data.Char (isDigit)
import System.Environment (getArgs)
import System.Exit (exitWith, ExitCode (ExitFailure))
import System.IO (hFlush, hPutStrLn, stderr, stdout)
import Text.Read (readMaybe)

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
  -- The list of MVars holds the N handles: one cons cell and one MVar per task, built once.
  done <- replicateM n $ do
    mv <- newEmptyMVar
    _ <- forkIO (threadDelay micros >> putMVar mv ())
    pure mv
  putStrLn ("ready " ++ show n)
  hFlush stdout
  forM_ done takeMVar
